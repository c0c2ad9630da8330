/**
 * Typed errors of trace requests: what the trace service refuses and why, with the wording
 * clients already see. Only the rpc layer decides how each reaches the wire.
 */
import { TraceError } from './errors.js';
import { bytesHex } from '../util/hex.js';

/** Every trace slot is taken; the request is refused rather than queued. */
export class TraceBusyError extends TraceError {
  /** Traces running when the request was refused. */
  readonly running: number;
  /** The configured cap (`max-concurrent-traces`). */
  readonly max: number;

  constructor(running: number, max: number) {
    super(
      `trace request rejected due to concurrency limit: server busy (${running} traces running, max-concurrent-traces = ${max}); ` +
        'retry when a running trace has finished',
    );
    this.running = running;
    this.max = max;
  }
}

/** The state a trace starts from was pruned. */
export class TraceStateUnavailableError extends TraceError {
  /** The earliest height whose state is retained. */
  readonly earliest: number;

  /** `needed` says what needed the state (e.g. "block 3 needs the state of block 2"). */
  constructor(needed: string, earliest: number) {
    super(`historical state is not available: ${needed}, and the earliest retained is ${earliest}`);
    this.earliest = earliest;
  }
}

/** The genesis block has no transactions to re-execute and no parent state. */
export class GenesisNotTraceableError extends TraceError {
  constructor() {
    super('genesis is not traceable');
  }
}

/** A method that re-executes with this chain's own rules was asked about an imported Ethereum block. */
export class ImportedBlockUnsupportedError extends TraceError {
  constructor(method: string, height: number) {
    super(`${method} is not supported on blocks imported from an Ethereum chain (block ${height}); use debug_traceTransaction or debug_traceBlockByNumber`);
  }
}

/** debug_traceCall's `txIndex` lies past the block's last transaction. */
export class TxIndexOutOfRangeError extends TraceError {
  constructor(index: number, blockHash: Uint8Array) {
    super(`transaction index ${index} out of range for block ${bytesHex(blockHash)}`);
  }
}

/** A request's `timeout` is not a Go duration (Go's own wording). */
export class InvalidTimeoutError extends TraceError {
  constructor(timeout: string) {
    super(`time: invalid duration "${timeout}"`);
  }
}

/** A request's `timeout` is longer than the node allows (`max-trace-timeout`). */
export class TraceTimeoutTooLongError extends TraceError {
  constructor(readonly timeout: string, readonly max: string) {
    super(`trace timeout ${timeout} is longer than this node allows (max-trace-timeout = ${max}); ask for ${max} or less`);
  }
}

/** Imported blocks are stored but the genesis of their chain, which gives their rules, is not. */
export class ImportedGenesisMissingError extends TraceError {
  constructor() {
    super("the block store holds imported blocks without their chain's genesis; import the chain again");
  }
}
