/**
 * The tracing backend of a running node: re-executes a stored block on its parent's state
 * (from the SS, so from the EVM SS on a split node) with the requested tracer. A parent state
 * that is gone is an RPC error naming the heights, never a partial result.
 */
import type { App } from '../app/index.js';
import { HeightPrunedError } from '../app/index.js';
import type { StoredBlock } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import { DurationSyntaxError, parseDuration } from '../config/index.js';
import type { BlockTraceEntry, DebugBackend, TraceOptions } from '../rpc/debug/index.js';
import { RpcError } from '../rpc/jsonrpc/index.js';
import { StructLogger, createTracer, isNativeTracer, type JsonValue, type Tracer } from '../trace/index.js';

/**
 * Checks geth's `timeout` syntax (Go duration). The deadline itself is not enforced yet: a
 * trace runs to its end.
 */
function checkTimeout(timeout: string | undefined): void {
  if (timeout === undefined) return;
  try {
    parseDuration(timeout);
  } catch (error) {
    if (error instanceof DurationSyntaxError) throw RpcError.server(`time: invalid duration "${timeout}"`);
    throw error;
  }
}

/** DebugBackend over one node's app and block store. */
export class NodeDebugBackend implements DebugBackend {
  constructor(
    private readonly app: App,
    private readonly store: BlockStore,
  ) {}

  latestHeight(): number {
    return this.store.latestHeight() ?? 0;
  }

  #tracer(options: TraceOptions): Tracer {
    checkTimeout(options.timeout);
    if (options.tracer === undefined || options.tracer === 'opcodeTracer') return new StructLogger(options.structLogger);
    // geth before v1.11 answered an unknown name with this; JavaScript tracers are not served yet.
    if (!isNativeTracer(options.tracer)) throw RpcError.server('tracer not found');
    return createTracer(options.tracer, options.tracerConfig);
  }

  async #trace(block: StoredBlock, tracerFor: (index: number) => Tracer | undefined, lastIndex?: number): Promise<BlockTraceEntry[]> {
    const h = block.header;
    try {
      return await this.app.traceBlock(
        { height: h.height, timeMs: h.timeMs, proposer: h.proposer, baseFee: h.baseFee, gasLimit: h.gasLimit, blockHash: block.hash },
        block.txs,
        tracerFor,
        lastIndex,
      );
    } catch (error) {
      if (error instanceof HeightPrunedError) {
        throw RpcError.server(`historical state is not available: block ${h.height} needs the state of block ${h.height - 1}, and the earliest retained is ${error.earliest}`);
      }
      throw error;
    }
  }

  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined> {
    const located = this.store.txByHash(hash);
    if (!located) return undefined;
    const block = this.store.blockByHeight(located.height);
    if (!block) return undefined;
    const tracer = this.#tracer(options);
    const traced = await this.#trace(block, (i) => (i === located.index ? tracer : undefined), located.index);
    return traced[0]?.result;
  }

  async #traceWhole(block: StoredBlock | undefined, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    if (!block) return undefined;
    this.#tracer(options);
    return this.#trace(block, () => this.#tracer(options));
  }

  traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#traceWhole(this.store.blockByHeight(height), options);
  }

  traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#traceWhole(this.store.blockByHash(hash), options);
  }
}
