/**
 * The tracing service of a running node: re-executes stored blocks on their parent's state
 * (from the SS, so from the EVM SS on a split node) with the requested tracer, and runs
 * debug_traceCall and debug_traceStateAccess. A parent state that is gone is a typed error
 * naming the heights, never a partial result. Every trace is bounded: a per-transaction
 * deadline (geth's `timeout`), a cap on traces running at once and a cap on struct-log bytes.
 */
import type { AppReader } from '../../app/index.js';
import type { StoredReceipt, TxLocation } from '../../chain/block-store.js';
import type { ChainBlock } from '../../chain/imported-block.js';
import type { BlockOverrides } from '../../evm/block-context.js';
import type { CallRequest, StateOverrides } from '../../evm/call.js';
import type { StateView } from '../../evm/state-manager.js';
import { HeightUnavailableError, type ChainProvider } from '../../provider/index.js';
import { storeReadsOfTx, traceCall, type ModuleReads } from '../executions/index.js';
import type { StatePreload } from '../js/index.js';
import { TraceGate, TraceWatch, defaultTraceLimits, requestTimeoutMs, withStatePreload, type TraceLimits } from '../limits/index.js';
import { PausedReplays, traceBlockTxs, type TracedBlockTx, type TracerFor } from '../replay/index.js';
import { TraceStateUnavailableError, TxIndexOutOfRangeError } from '../service-errors.js';
import { prepareTracer, selectTracer, type TraceRequestOptions, type TracerBounds } from '../tracer-selection.js';
import type { JsonValue, Tracer } from '../types.js';
import { ExecutionContexts, headerInput, requireOwnBlock } from './execution-contexts.js';
import { TraceableBlocks } from './traceable-blocks.js';

/** A block named by height or hash. */
export type TracedBlockRef = { readonly height: number } | { readonly hash: Uint8Array };

/** A debug_traceCall request in the executor's terms. */
export interface CallTraceRequest {
  readonly call: CallRequest;
  readonly block: TracedBlockRef;
  readonly stateOverrides: StateOverrides;
  readonly blockOverrides: BlockOverrides;
  /** Trace on the state before this transaction of the block (after the ones before it). */
  readonly txIndex: number | undefined;
}

/** The store-level reads of one mined transaction, with the lookups that found it. */
export interface StateAccessTrace {
  readonly txHash: Uint8Array;
  readonly location: TxLocation;
  readonly block: ChainBlock;
  readonly receipt: StoredReceipt;
  /** Per module store name. */
  readonly modules: Map<string, ModuleReads>;
}

/** Tracing over one node's app and chain. */
export class TraceService {
  readonly #limits: TraceLimits;
  readonly #gate: TraceGate;
  readonly #blocks: TraceableBlocks;
  readonly #contexts: ExecutionContexts;
  /** Block replays kept between traces of the same block. */
  readonly #paused = new PausedReplays();

  constructor(
    private readonly app: AppReader,
    private readonly chain: ChainProvider,
    limits: TraceLimits = defaultTraceLimits(),
  ) {
    this.#limits = limits;
    this.#gate = new TraceGate(limits.maxConcurrentTraces);
    this.#blocks = new TraceableBlocks(chain.blocks);
    this.#contexts = new ExecutionContexts(app, chain.blocks);
  }

  /** The trace of one mined transaction, or undefined when the hash is unknown. */
  async traceTransaction(hash: Uint8Array, options: TraceRequestOptions): Promise<JsonValue | undefined> {
    const located = this.chain.blocks.txInBlock(hash);
    if (!located) return undefined;
    const { block, index } = located;
    await prepareTracer(options);
    const traced = await this.#gate.run(() =>
      this.#withRetries(options, (tracer, watch) => {
        const one = tracer();
        return this.#traceTxs(block, watch, (i) => (i === index ? one : undefined), index, index);
      }),
    );
    return traced[0]?.result;
  }

  /** Traces of every transaction of a block, or undefined when there is no such block. */
  async traceBlock(ref: TracedBlockRef, options: TraceRequestOptions): Promise<TracedBlockTx[] | undefined> {
    const block = this.#block(ref);
    if (!block) return undefined;
    await prepareTracer(options);
    // Fails now, before the block runs, when the timeout, the tracer or its config is invalid.
    selectTracer(options, this.#bounds(options));
    return this.#gate.run(() => this.#withRetries(options, (tracer, watch) => this.#traceTxs(block, watch, () => tracer())));
  }

  /** The trace of a call in a block, or undefined when the block is unknown. */
  async traceCall(request: CallTraceRequest, options: TraceRequestOptions): Promise<JsonValue | undefined> {
    const block = this.#block(request.block);
    if (!block) return undefined;
    requireOwnBlock(block, 'debug_traceCall');
    const { txIndex } = request;
    if (txIndex !== undefined && txIndex >= block.txs.length) throw new TxIndexOutOfRangeError(txIndex, block.hash);
    await prepareTracer(options);
    const height = block.header.height;
    const leadingTxs = txIndex === undefined ? [] : block.txs.slice(0, txIndex);
    return this.#gate.run(() => {
      const view =
        txIndex === undefined
          ? this.#stateAt(height, `the call needs the state after block ${height}`)
          : this.#stateAt(height - 1, `txIndex needs the state of block ${height - 1}`);
      const env = { context: this.#contexts.of(block), header: headerInput(block), view, leadingTxs, gasCap: this.app.gasCap };
      return this.#withRetries(options, (tracer, watch) =>
        watch.run(traceCall(env, request.call, request.stateOverrides, request.blockOverrides, tracer())),
      );
    });
  }

  /** The store-level reads of one mined transaction, or undefined when the hash is unknown. */
  async traceStateAccess(hash: Uint8Array): Promise<StateAccessTrace | undefined> {
    const location = this.chain.blocks.txByHash(hash);
    if (!location) return undefined;
    const block = this.#blocks.byHeight(location.height);
    const receipt = this.chain.blocks.receipt(hash);
    if (!block || !receipt) return undefined;
    requireOwnBlock(block, 'debug_traceStateAccess');
    const height = block.header.height;
    const modules = await this.#gate.run(() =>
      storeReadsOfTx(this.#contexts.of(block), this.#stateAt(height - 1, `block ${height} needs the state of block ${height - 1}`), block.txs, location.index),
    );
    return { txHash: hash, location, block, receipt, modules };
  }

  #block(ref: TracedBlockRef): ChainBlock | undefined {
    return 'hash' in ref ? this.#blocks.byHash(ref.hash) : this.#blocks.byHeight(ref.height);
  }

  /** The bounds of one request's tracers; throws InvalidTimeoutError for a bad `timeout`. */
  #bounds(options: TraceRequestOptions): TracerBounds {
    return { maxStructLogBytes: this.#limits.maxStructLogBytes, timeoutMs: requestTimeoutMs(options.timeout, this.#limits) };
  }

  /**
   * Runs a trace — again while its JavaScript tracers read state they had not loaded. Each
   * run has its own watch (a failed run leaves its watch stopped) and makes its tracers with
   * `tracer`, each stopped by that watch at its deadline.
   */
  #withRetries<T>(options: TraceRequestOptions, run: (tracer: () => Tracer, watch: TraceWatch) => Promise<T>): Promise<T> {
    return withStatePreload((preload: StatePreload) => {
      const bounds = this.#bounds(options);
      const watch = new TraceWatch(bounds.timeoutMs);
      return run(() => watch.wrap(selectTracer(options, bounds, preload)), watch);
    });
  }

  /** Replays `block` tracing the transactions `tracerFor` selects, within `watch`'s deadlines. */
  #traceTxs(block: ChainBlock, watch: TraceWatch, tracerFor: TracerFor, lastIndex?: number, firstTraced?: number): Promise<TracedBlockTx[]> {
    const height = block.header.height;
    const replayed = { hash: block.hash, txs: block.txs, context: () => this.#contexts.of(block) };
    const parentView = () => this.#stateAt(height - 1, `block ${height} needs the state of block ${height - 1}`);
    return watch.run(traceBlockTxs(this.#paused, replayed, parentView, { tracerFor, lastIndex, firstTraced }));
  }

  /** The SS state at `height`, pinned; a pruned one is TraceStateUnavailableError naming what `needed` it. */
  #stateAt(height: number, needed: string): StateView {
    try {
      return this.chain.state.at(height, { pinned: true }).view;
    } catch (error) {
      if (error instanceof HeightUnavailableError && error.reason === 'pruned') throw new TraceStateUnavailableError(needed, error.bound);
      throw error;
    }
  }
}
