/**
 * The debug_ methods on the execution workers: the rpc layer's DebugBackend, whose traces run
 * on a worker's replica of the node (its SS and block store, borrowed) under the same
 * TraceService as ever. The cap on concurrent traces is kept here, so it counts the traces
 * that are running on workers; a trace request as a whole is stopped after ten times
 * `max-trace-timeout` (its transactions keep their own deadlines inside the worker).
 */
import type { App } from '../../app/index.js';
import type { BlockStore } from '../../chain/block-store.js';
import type { ChainProvider } from '../../provider/index.js';
import type { BlockTraceEntry, DebugBackend, StateAccess, TraceCallRequest, TraceOptions } from '../../rpc/debug/index.js';
import { TraceError, TraceGate, requestTimeoutMs, type JsonValue, type TraceLimits } from '../../trace/index.js';
import type { Deadline, WorkerPool } from './pool.js';
import type { TraceCall } from './protocol.js';

/** How many times `max-trace-timeout` a whole trace request may run. */
const REQUEST_BACKSTOP_FACTOR = 10;

/** DebugBackend over a worker pool. */
export class WorkerDebugBackend implements DebugBackend {
  readonly #gate: TraceGate;
  readonly #deadline: Deadline;
  readonly #limits: TraceLimits;

  constructor(
    private readonly pool: WorkerPool,
    private readonly app: App,
    private readonly chain: ChainProvider,
    /** For the oldest stored block, which the `earliest` tag of debug_traceCall names. */
    private readonly store: BlockStore,
    limits: TraceLimits,
  ) {
    this.#limits = limits;
    this.#gate = new TraceGate(limits.maxConcurrentTraces);
    this.#deadline = { ms: limits.maxTimeoutMs * REQUEST_BACKSTOP_FACTOR, error: () => new TraceError('execution timeout') };
  }

  latestHeight(): number {
    return this.chain.blocks.latestHeight();
  }

  earliestHeight(): number {
    return this.store.earliestHeight() ?? 0;
  }

  traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined> {
    return this.#run({ kind: 'trace', method: 'traceTransaction', args: [hash, options] }, options) as Promise<JsonValue | undefined>;
  }

  traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#run({ kind: 'trace', method: 'traceBlockByNumber', args: [height, options] }, options) as Promise<BlockTraceEntry[] | undefined>;
  }

  traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.#run({ kind: 'trace', method: 'traceBlockByHash', args: [hash, options] }, options) as Promise<BlockTraceEntry[] | undefined>;
  }

  traceCall(request: TraceCallRequest, options: TraceOptions): Promise<JsonValue | undefined> {
    return this.#run({ kind: 'trace', method: 'traceCall', args: [request, options] }, options) as Promise<JsonValue | undefined>;
  }

  traceStateAccess(hash: Uint8Array): Promise<StateAccess | undefined> {
    return this.#run({ kind: 'trace', method: 'traceStateAccess', args: [hash] }) as Promise<StateAccess | undefined>;
  }

  /**
   * Runs `call` on a worker once a trace slot is free and the SS holds every committed block;
   * a bad or too long `timeout` in `options` is refused first, before anything is looked up.
   */
  async #run(call: TraceCall, options?: TraceOptions): Promise<unknown> {
    if (options) requestTimeoutMs(options.timeout, this.#limits);
    return this.#gate.run(async () => {
      await this.app.awaitStored();
      return this.pool.run(call, this.#deadline);
    });
  }
}
