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
import { RawJson, type AsciiJsonParts } from '../../util/raw-json.js';
import type { Affinity, Deadline, WorkerPool } from './pool.js';
import type { TraceCall } from './protocol.js';

/** How many times `max-trace-timeout` a whole trace request may run. */
const REQUEST_BACKSTOP_FACTOR = 10;

/** A trace result the worker sent as its JSON text (a string or text bytes), spliced into the response as it is. */
function rawResult(text: unknown): RawJson | undefined {
  if (typeof text === 'string') return new RawJson(text);
  return text !== null && typeof text === 'object' ? new RawJson(text as AsciiJsonParts) : undefined;
}

/** Block traces whose results the worker sent as JSON text. */
function rawEntries(entries: unknown): BlockTraceEntry[] | undefined {
  const list = entries as Array<{ txHash: Uint8Array; result: unknown }> | undefined;
  return list?.map((entry) => ({ txHash: entry.txHash, result: rawResult(entry.result) ?? null }));
}

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

  async traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined> {
    // The worker that traced an earlier transaction of the block holds its replay paused there.
    const position = this.store.txPosition(hash);
    const affinity = position && { key: String(position.height), order: position.index };
    return rawResult(await this.#run({ kind: 'trace', method: 'traceTransaction', args: [hash, options] }, options, affinity));
  }

  async traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return rawEntries(await this.#run({ kind: 'trace', method: 'traceBlockByNumber', args: [height, options] }, options));
  }

  async traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return rawEntries(await this.#run({ kind: 'trace', method: 'traceBlockByHash', args: [hash, options] }, options));
  }

  async traceCall(request: TraceCallRequest, options: TraceOptions): Promise<JsonValue | undefined> {
    return rawResult(await this.#run({ kind: 'trace', method: 'traceCall', args: [request, options] }, options));
  }

  traceStateAccess(hash: Uint8Array): Promise<StateAccess | undefined> {
    return this.#run({ kind: 'trace', method: 'traceStateAccess', args: [hash] }) as Promise<StateAccess | undefined>;
  }

  /**
   * Runs `call` on a worker (the one of `affinity` when it may take it) once a trace slot is
   * free and the SS holds every committed block; a bad or too long `timeout` in `options` is
   * refused first, before anything is looked up.
   */
  async #run(call: TraceCall, options?: TraceOptions, affinity?: Affinity): Promise<unknown> {
    if (options) requestTimeoutMs(options.timeout, this.#limits);
    return this.#gate.run(async () => {
      await this.app.awaitStored();
      return this.pool.run(call, this.#deadline, affinity);
    });
  }
}
