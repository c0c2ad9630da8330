/**
 * The tracing backend of a running node: re-executes a stored block on its parent's state
 * (from the SS, so from the EVM SS on a split node) with the requested tracer. A parent state
 * that is gone is an RPC error naming the heights, never a partial result. Every trace is
 * bounded: a per-transaction deadline (geth's `timeout`), a cap on traces running at once and
 * a cap on struct-log bytes.
 */
import type { App, BlockHeaderInput } from '../app/index.js';
import { EthChainConfig } from '../app/eth-chain-config.js';
import { ethExecutionContext } from '../app/eth-execution.js';
import type { ExecutionContext } from '../app/execution-context.js';
import { TraceWatch } from '../app/trace-deadline.js';
import type { StoredBlock } from '../chain/block.js';
import type { ChainBlock } from '../chain/imported-block.js';
import type { BlockStore, StoredReceipt } from '../chain/block-store.js';
import { DurationSyntaxError, defaultAppConfig, parseDuration, type EvmRpcConfig } from '../config/index.js';
import {
  TraceGate,
  type BlockStoreLookup,
  type BlockTraceEntry,
  type DebugBackend,
  type StateAccess,
  type StateAccessReceipt,
  type TraceCallRequest,
  type TraceOptions,
} from '../rpc/debug/index.js';
import { RpcError } from '../rpc/jsonrpc/index.js';
import { HeightUnavailableError, type ChainProvider } from '../provider/index.js';
import type { StateView } from '../evm/state-manager.js';
import { StatePreload, StructLogger, createTracer, isNativeTracer, loadJsTracerEngine, type JsonValue, type Tracer } from '../trace/index.js';
import { appCallRequest, appStateOverrides } from './call-request.js';

/** Runs of one trace at most while its JavaScript tracers keep reading state not yet loaded. */
const MAX_STATE_RUNS = 4;

/** The bounds every trace runs within (app.toml `[evm]`). */
export interface TraceLimits {
  /** Per-transaction deadline when a request names no `timeout` (`trace-timeout`). */
  readonly defaultTimeoutMs: number;
  /** Traces running at once; more are refused (`max-concurrent-traces`). */
  readonly maxConcurrentTraces: number;
  /** Cap on one struct-logger trace's encoded struct logs (`max-struct-log-bytes`). */
  readonly maxStructLogBytes: number;
}

/** The trace limits an `[evm]` section configures. */
export function traceLimitsOf(evm: EvmRpcConfig): TraceLimits {
  return {
    defaultTimeoutMs: evm.traceTimeout.toMilliseconds(),
    maxConcurrentTraces: evm.maxConcurrentTraces,
    maxStructLogBytes: evm.maxStructLogBytes,
  };
}

/** The per-transaction deadline a request asks for (geth's `timeout`, Go duration syntax). */
function timeoutMs(timeout: string | undefined, fallbackMs: number): number {
  if (timeout === undefined) return fallbackMs;
  try {
    return Number(parseDuration(timeout)) / 1e6;
  } catch (error) {
    if (error instanceof DurationSyntaxError) throw RpcError.server(`time: invalid duration "${timeout}"`);
    throw error;
  }
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

function headerInput(block: StoredBlock): BlockHeaderInput {
  const h = block.header;
  return { height: h.height, timeMs: h.timeMs, proposer: h.proposer, baseFee: h.baseFee, gasLimit: h.gasLimit };
}

function receiptOf(r: StoredReceipt): StateAccessReceipt {
  return {
    blockNumber: r.blockHeight,
    contractAddress: r.contractAddress,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    from: r.from,
    to: r.to,
    gasUsed: r.gasUsed,
    status: r.status,
    type: r.txType,
    transactionHash: r.txHash,
    transactionIndex: r.txIndex,
  };
}

/** A stored block as debug_traceStateAccess reports its lookup. */
function blockLookupResponse(block: StoredBlock): JsonValue {
  const h = block.header;
  return {
    hash: hex(block.hash),
    height: String(h.height),
    time: new Date(h.timeMs).toISOString(),
    proposer: hex(h.proposer),
    lastBlockHash: hex(h.lastBlockHash),
    appHash: hex(h.appHash),
    gasUsed: `0x${h.gasUsed.toString(16)}`,
    gasLimit: `0x${h.gasLimit.toString(16)}`,
    baseFee: `0x${h.baseFee.toString(16)}`,
    txs: block.txs.length,
  };
}

/** DebugBackend over one node's app and block store. */
export class NodeDebugBackend implements DebugBackend {
  readonly #limits: TraceLimits;
  readonly #gate: TraceGate;
  /** The rules of an imported Ethereum chain, read from the block store once. */
  #importedChain: EthChainConfig | undefined;

  constructor(
    private readonly app: App,
    private readonly store: BlockStore,
    private readonly chain: ChainProvider,
    limits: TraceLimits = traceLimitsOf(defaultAppConfig().evm),
  ) {
    this.#limits = limits;
    this.#gate = new TraceGate(limits.maxConcurrentTraces);
  }

  latestHeight(): number {
    return this.store.latestHeight() ?? 0;
  }

  earliestHeight(): number {
    return this.store.earliestHeight() ?? 0;
  }

  /** The deadlines of one request. */
  #watch(options: TraceOptions): TraceWatch {
    return new TraceWatch(timeoutMs(options.timeout, this.#limits.defaultTimeoutMs));
  }

  /** Loads what the requested tracer needs before any transaction runs: the JavaScript engine, once. */
  async #prepare(options: TraceOptions): Promise<void> {
    if (options.tracer !== undefined && options.tracer !== 'opcodeTracer' && !isNativeTracer(options.tracer)) await loadJsTracerEngine();
  }

  /** A tracer for one transaction, stopped by `watch` at its deadline. */
  #tracer(options: TraceOptions, watch: TraceWatch, preload?: StatePreload): Tracer {
    return watch.wrap(this.#bareTracer(options, watch, preload));
  }

  #bareTracer(options: TraceOptions, watch: TraceWatch, preload?: StatePreload): Tracer {
    if (options.tracer === undefined || options.tracer === 'opcodeTracer') {
      return new StructLogger({ ...options.structLogger, maxBytes: this.#limits.maxStructLogBytes });
    }
    // A JavaScript tracer is also bounded inside its sandbox, where a loop in the tracer itself runs.
    return createTracer(options.tracer, options.tracerConfig, { deadlineMs: Date.now() + watch.timeoutMs }, preload);
  }

  /**
   * Runs a trace, and runs it again while its JavaScript tracers read state they had not
   * loaded (their `db` answers synchronously from state loaded before each step): each run
   * loads what earlier runs missed, so a request ends with every read answered — or, after
   * MAX_STATE_RUNS, with the error the last run gave. Each run has its own watch (a failed
   * run leaves its watch stopped) with the request's per-transaction timeout.
   */
  async #withStatePreload<T>(options: TraceOptions, run: (preload: StatePreload, watch: TraceWatch) => Promise<T>): Promise<T> {
    const preload = new StatePreload();
    for (let attempt = 1; ; attempt++) {
      const missed = preload.revision;
      let result: T;
      try {
        result = await run(preload, this.#watch(options));
      } catch (error) {
        if (preload.revision === missed || attempt >= MAX_STATE_RUNS) throw error;
        continue;
      }
      // A tracer may have caught the failed read itself; its answer is then incomplete.
      if (preload.revision === missed || attempt >= MAX_STATE_RUNS) return result;
    }
  }

  /**
   * debug_traceCall and debug_traceStateAccess re-execute with this chain's own rules; an
   * imported Ethereum block needs its chain's rules and system calls, so they refuse it rather
   * than answer from the wrong execution.
   */
  #ownBlock(block: ChainBlock, method: string): void {
    if (block.eth !== undefined) {
      throw RpcError.server(`${method} is not supported on blocks imported from an Ethereum chain (block ${block.header.height}); use debug_traceTransaction or debug_traceBlockByNumber`);
    }
  }

  /** The SS state at `height`, pinned, or the RPC error naming what needed it and the earliest height kept. */
  #stateAt(height: number, needed: string): StateView {
    try {
      return this.chain.state.at(height, { pinned: true }).view;
    } catch (error) {
      if (error instanceof HeightUnavailableError && error.reason === 'pruned') {
        throw RpcError.server(`historical state is not available: ${needed}, and the earliest retained is ${error.bound}`);
      }
      throw error;
    }
  }

  /**
   * How to re-execute `block`: with the chain's own rules, or — imported from an Ethereum
   * chain — with its Ethereum header and that chain's rules (block 1 starts from the genesis
   * alloc, which the versioned stores cannot hold at version 0).
   */
  #contextOf(block: ChainBlock): ExecutionContext {
    if (block.eth === undefined) return this.app.ownExecutionContext(headerInput(block), block.hash);
    if (block.eth.header.length === 0) throw RpcError.server('genesis is not traceable');
    if (this.#importedChain === undefined) {
      const genesis = this.store.importedChainGenesis();
      if (genesis === undefined) throw RpcError.server('the block store holds imported blocks without their chain\'s genesis; import the chain again');
      this.#importedChain = EthChainConfig.parse(genesis);
    }
    const height = block.header.height;
    const parentState = height === 1 ? this.#importedChain.genesisView() : undefined;
    return ethExecutionContext(this.#importedChain, block.eth.header, height, (n) => this.store.hashAt(Number(n)), parentState);
  }

  async #trace(block: StoredBlock, watch: TraceWatch, tracerFor: (index: number) => Tracer | undefined, lastIndex?: number, firstTraced?: number): Promise<BlockTraceEntry[]> {
    const h = block.header;
    const context = this.#contextOf(block);
    const parentView = () => this.#stateAt(h.height - 1, `block ${h.height} needs the state of block ${h.height - 1}`);
    return watch.run(this.app.traceBlock(context, block.txs, tracerFor, parentView, lastIndex, firstTraced));
  }

  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined> {
    const located = this.store.txByHash(hash);
    if (!located) return undefined;
    const block = this.store.blockByHeight(located.height);
    if (!block) return undefined;
    await this.#prepare(options);
    const traced = await this.#gate.run(() =>
      this.#withStatePreload(options, (preload, watch) => {
        const tracer = this.#tracer(options, watch, preload);
        return this.#trace(block, watch, (i) => (i === located.index ? tracer : undefined), located.index, located.index);
      }),
    );
    return traced[0]?.result;
  }

  async #traceWhole(block: StoredBlock | undefined, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    if (!block) return undefined;
    await this.#prepare(options);
    // Fails now, before the block runs, when the tracer or its config is invalid.
    this.#bareTracer(options, this.#watch(options));
    return this.#gate.run(() => this.#withStatePreload(options, (preload, watch) => this.#trace(block, watch, () => this.#tracer(options, watch, preload))));
  }

  traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#traceWhole(this.store.blockByHeight(height), options);
  }

  traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#traceWhole(this.store.blockByHash(hash), options);
  }

  async traceCall(request: TraceCallRequest, options: TraceOptions): Promise<JsonValue | undefined> {
    const block = 'hash' in request.block ? this.store.blockByHash(request.block.hash) : this.store.blockByHeight(request.block.height);
    if (!block) return undefined;
    this.#ownBlock(block, 'debug_traceCall');
    const txIndex = request.txIndex;
    if (txIndex !== undefined && txIndex >= block.txs.length) {
      throw RpcError.server(`transaction index ${txIndex} out of range for block ${hex(block.hash)}`);
    }
    await this.#prepare(options);
    const height = block.header.height;
    const leadingTxs = txIndex === undefined ? undefined : block.txs.slice(0, txIndex);
    const call = appCallRequest(request.call);
    const stateOverrides = appStateOverrides(request.stateOverrides);
    return this.#gate.run(() => {
      const view =
        leadingTxs === undefined
          ? this.#stateAt(height, `the call needs the state after block ${height}`)
          : this.#stateAt(height - 1, `txIndex needs the state of block ${height - 1}`);
      return this.#withStatePreload(options, (preload, watch) =>
        watch.run(this.app.traceCall(view, headerInput(block), leadingTxs, call, stateOverrides, request.blockOverrides, this.#tracer(options, watch, preload))),
      );
    });
  }

  async traceStateAccess(hash: Uint8Array): Promise<StateAccess | undefined> {
    const lookups: BlockStoreLookup[] = [];
    const located = this.store.txByHash(hash);
    lookups.push({ endpoint: 'Tx', arguments: [hex(hash)], response: located ? { height: String(located.height), index: located.index } : null });
    if (!located) return undefined;
    const block = this.store.blockByHeight(located.height);
    lookups.push({ endpoint: 'Block', arguments: [String(located.height)], response: block ? blockLookupResponse(block) : null });
    const receipt = this.store.receipt(hash);
    if (!block || !receipt) return undefined;
    this.#ownBlock(block, 'debug_traceStateAccess');
    const height = block.header.height;
    const modules = await this.#gate.run(() =>
      this.app.storeReadsOfTx(this.#stateAt(height - 1, `block ${height} needs the state of block ${height - 1}`), headerInput(block), block.txs, located.index),
    );
    return { modules, lookups, receipt: receiptOf(receipt) };
  }
}
