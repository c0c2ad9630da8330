/**
 * The node's Prometheus metrics, kept in one prom-client registry per node (never the global
 * default, so two nodes in one process do not collide). Gauges read their value at scrape
 * time; histograms are fed by the app (block timings) and the JSON-RPC dispatcher (calls).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MallocUsage, MemoryBudgetUsage } from '../store/index.js';
import { CompactHistogram, type HistogramSeries } from './compact-histogram.js';
import type { WorkerHeap } from './execution-workers/index.js';
import { StoreSizes } from './metrics-store-sizes.js';
import { NO_THREAD_CPU, currentThreadId, threadCpu, type ThreadCpu } from './thread-cpu.js';

/** Buckets (seconds) of the block-stage histograms: a block takes milliseconds to seconds. */
const BLOCK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Buckets (seconds) of admission per transaction: tens of microseconds to milliseconds. */
const ADMISSION_BUCKETS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01];
/** Buckets (seconds) of RPC latency: from cached reads to long traces. */
const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The label every method that is not served collapses into, so a client cannot grow the label set. */
export const UNKNOWN_METHOD_LABEL = 'unknown';

/** The stages of a block the histogram `strata_block_stage_duration_seconds` has. */
export type BlockStageName = 'execute' | 'sc_commit' | 'ss_apply' | 'sign' | 'block_store';

/** Values a scrape reads from the running node. */
export interface NodeMetricSources {
  /** Latest committed height. */
  height(): number;
  /** Highest height a peer reported minus our own (0 without peers). */
  lag(): number;
  /** Connected peers. */
  peers(): number;
  /** Transactions in the mempool. */
  mempoolSize(): number;
  /** The mempool's capacity (`[mempool] size`). */
  mempoolCapacity: number;
  /** Execution worker pools by name. */
  pools: Readonly<Record<string, PoolState>>;
  /** The home's `data/` directory, whose stores are measured on disk. */
  dataDir: string;
  /** The RocksDB memory budget every store shares (`[storage]`). */
  storageMemory(): MemoryBudgetUsage;
  /** Bytes of memiavl tree nodes in memory, per Cosmos store. */
  commitTreeMemory(): Record<string, number>;
  /** Estimated bytes the eth_call result cache holds. */
  callCacheBytes(): number;
  /** Estimated bytes of the decoded logs the block store remembers. */
  logCacheBytes(): number;
  /** Estimated bytes of the decoded blocks the block store remembers. */
  decodedBlockBytes(): number;
  /** The budgets of those three caches, estimated bytes. */
  cacheCapacities: Readonly<Record<'call_results' | 'logs' | 'decoded_blocks', number>>;
  /** What the C heap (malloc) holds. */
  nativeHeap(): MallocUsage;
  /** Arenas malloc has made. */
  nativeHeapArenas(): number;
}

/** What the metrics read from an execution worker pool. */
interface PoolState {
  readonly size: number;
  readonly running: number;
  readonly queued: number;
  readonly started: number;
  readonly nurseryLimitBytes: number;
  readonly replayedTransactions: number;
  readonly heap: WorkerHeap;
  readonly cpu: ThreadCpu;
}

/** One node's metrics registry and the observers that feed it. */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly #blockStage: Histogram<'stage'>;
  readonly #heapTrimmed: Counter;
  /** Series bound once, so admission observes without a label lookup per transaction. */
  readonly #admissionRecover: HistogramSeries;
  readonly #admissionChecks: HistogramSeries;
  /**
   * Per method: its latency series, and its calls since the counter was last read (a scrape
   * adds them to `strata_rpc_requests_total`) — one lookup per call.
   */
  readonly #rpcMethods = new Map<string, { latency: HistogramSeries; ok: number; error: number }>();
  readonly #rpcLatency: CompactHistogram<'method'>;
  readonly #traces: Histogram<'method' | 'outcome'>;

  constructor(sources: NodeMetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({ name, help, registers, collect() { this.set(read()); } });
    };
    gauge('strata_block_height', 'Latest committed block height.', () => sources.height());
    gauge('strata_sync_lag_blocks', 'Blocks between the highest height a peer reported and this node.', () => sources.lag());
    gauge('strata_peers', 'Connected peers.', () => sources.peers());
    gauge('strata_mempool_size', 'Transactions in the mempool.', () => sources.mempoolSize());
    gauge('strata_mempool_capacity', 'Most transactions the mempool holds ([mempool] size).', () => sources.mempoolCapacity);
    const poolGauge = (name: string, help: string, read: (pool: PoolState) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          for (const [pool, state] of Object.entries(sources.pools)) this.set({ pool }, read(state));
        },
      });
    };
    poolGauge('strata_execution_workers', 'Execution worker threads running.', (p) => p.size);
    poolGauge('strata_execution_tasks_running', 'Calls or traces running on execution workers.', (p) => p.running);
    poolGauge('strata_execution_tasks_queued', 'Calls or traces waiting for an execution worker.', (p) => p.queued);
    poolGauge(
      'strata_execution_worker_nursery_limit_bytes',
      "The young-generation limits of a pool's workers, summed: base workers at the pool's setting, workers beyond the base at the smaller burst setting.",
      (p) => p.nurseryLimitBytes,
    );
    new Gauge({
      name: 'strata_execution_worker_heap_bytes',
      help: "V8 heap of a pool's workers, summed: used, total (reserved by the heaps), young (of total, reserved by the young generations), external (ArrayBuffers and native memory their objects own).",
      labelNames: ['pool', 'kind'],
      registers,
      collect() {
        for (const [pool, { heap }] of Object.entries(sources.pools)) {
          this.set({ pool, kind: 'used' }, heap.usedBytes);
          this.set({ pool, kind: 'total' }, heap.totalBytes);
          this.set({ pool, kind: 'young' }, heap.youngBytes);
          this.set({ pool, kind: 'external' }, heap.externalBytes);
        }
      },
    });
    // The main thread's time, read when a scrape (which runs on the main thread) collects it.
    const mainThread = currentThreadId();
    const threadCounter = (name: string, help: string, read: (cpu: ThreadCpu) => number): void => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const total = read(threadCpu(mainThread) ?? NO_THREAD_CPU);
          if (total <= seen) return;
          this.inc(total - seen);
          seen = total;
        },
      });
    };
    // A counter per pool that follows a running total the pool keeps.
    const poolCounter = (name: string, help: string, read: (pool: PoolState) => number): void => {
      const seen = new Map<string, number>();
      new Counter({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          for (const [pool, state] of Object.entries(sources.pools)) {
            // A float total summed in another order may come out a rounding error lower.
            const total = read(state);
            const delta = total - (seen.get(pool) ?? 0);
            if (delta < 0) continue;
            this.inc({ pool }, delta);
            seen.set(pool, total);
          }
        },
      });
    };
    poolCounter(
      'strata_execution_worker_starts_total',
      'Execution worker threads started: the base ones, growth under long tasks, and replacements of workers stopped at a deadline or lost.',
      (p) => p.started,
    );
    poolCounter(
      'strata_execution_worker_cpu_seconds_total',
      "CPU time of a pool's worker threads (Linux; those replaced or retired included).",
      (p) => p.cpu.runSeconds,
    );
    poolCounter(
      'strata_execution_worker_cpu_wait_seconds_total',
      "Time a pool's worker threads were ready to run but waited for a CPU (Linux): high against the CPU time, the workers are short of cores, not of work.",
      (p) => p.cpu.waitSeconds,
    );
    threadCounter('strata_main_thread_cpu_seconds_total', 'CPU time of the main thread (Linux): RPC, consensus, block production and sync run on it.', (c) => c.runSeconds);
    threadCounter('strata_main_thread_cpu_wait_seconds_total', 'Time the main thread was ready to run but waited for a CPU (Linux).', (c) => c.waitSeconds);
    poolCounter(
      'strata_trace_replayed_transactions_total',
      "Transactions a pool's workers re-ran untraced to reach the state a trace starts from (the block's transactions before the traced one).",
      (p) => p.replayedTransactions,
    );
    // A gauge whose one label takes the keys `read` returns at each scrape.
    const labelledGauge = (name: string, help: string, label: string, read: () => Record<string, number>): void => {
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers,
        collect() {
          for (const [value, amount] of Object.entries(read())) this.set({ [label]: value }, amount);
        },
      });
    };
    labelledGauge('strata_storage_memory_bytes', 'RocksDB memory of all stores: block_cache (pinned included), block_cache_pinned, memtables.', 'kind', () => {
      const u = sources.storageMemory();
      return { block_cache: u.blockCacheBytes, block_cache_pinned: u.blockCachePinnedBytes, memtables: u.memtableBytes };
    });
    labelledGauge('strata_storage_memory_capacity_bytes', 'The [storage] budget: block_cache (block-cache-size-mb), memtables (write-buffer-size-mb).', 'kind', () => {
      const u = sources.storageMemory();
      return { block_cache: u.blockCacheCapacity, memtables: u.writeBufferCapacity };
    });
    labelledGauge(
      'strata_commit_tree_memory_bytes',
      'memiavl tree nodes in memory per store: written since the last SC snapshot or loaded from it on first touch (freed when the next snapshot replaces the trees).',
      'store',
      () => sources.commitTreeMemory(),
    );
    gauge(
      'strata_call_cache_bytes',
      'eth_call outcomes the node remembers per (height, request), in estimated bytes of keys and results.',
      () => sources.callCacheBytes(),
    );
    gauge(
      'strata_log_cache_bytes',
      'Decoded logs the block store remembers for eth_getLogs and receipts, in estimated bytes of the logs and their JSON.',
      () => sources.logCacheBytes(),
    );
    gauge(
      'strata_decoded_block_cache_bytes',
      'Decoded blocks the block store of the node thread remembers for receipts, transaction lookups and traces, in estimated bytes.',
      () => sources.decodedBlockBytes(),
    );
    labelledGauge(
      'strata_cache_capacity_bytes',
      'Budgets of the in-memory caches, in estimated bytes: call_results (strata_call_cache_bytes), logs (strata_log_cache_bytes), decoded_blocks (strata_decoded_block_cache_bytes).',
      'cache',
      () => sources.cacheCapacities,
    );
    labelledGauge(
      'strata_native_heap_bytes',
      'The C heap (glibc malloc) of the whole process: in_use (allocated), free (held in its arenas, not in use), mmapped (large allocations on their own).',
      'kind',
      () => {
        const heap = sources.nativeHeap();
        return { in_use: heap.inUseBytes, free: heap.freeBytes, mmapped: heap.mmappedBytes };
      },
    );
    new Gauge({
      name: 'strata_native_heap_arenas',
      help: 'Arenas glibc malloc has made (each thread that allocates may get one; the node caps them, MALLOC_ARENA_MAX overrides).',
      registers,
      collect() {
        this.set(sources.nativeHeapArenas());
      },
    });
    this.#heapTrimmed = new Counter({
      name: 'strata_native_heap_trimmed_bytes_total',
      help: 'Resident bytes the periodic trims of the C heap handed back to the system (pages malloc held free).',
      registers,
    });
    const sizes = new StoreSizes(sources.dataDir);
    new Gauge({
      name: 'strata_store_size_bytes',
      help: 'Bytes on disk of each store under data/ (measured at most once a minute).',
      labelNames: ['store'],
      registers,
      async collect() {
        for (const [store, bytes] of await sizes.read()) this.set({ store }, bytes);
      },
    });
    this.#blockStage = new Histogram({
      name: 'strata_block_stage_duration_seconds',
      help:
        'Time of each stage of a block: execute (transactions), sc_commit (state commitment, the app hash), ss_apply (state store); ' +
        'on a validator also sign (the header) and block_store (block, receipts and commit saved).',
      labelNames: ['stage'],
      buckets: BLOCK_BUCKETS,
      registers,
    });
    const admission = new CompactHistogram({
      name: 'strata_admission_seconds',
      help: 'Mempool admission time per transaction: recover (sender recovery from the signature) and checks (decoding, nonce, balance, fee and pool checks).',
      labelName: 'stage',
      buckets: ADMISSION_BUCKETS,
      registry: this.registry,
    });
    this.#admissionRecover = admission.series('recover');
    this.#admissionChecks = admission.series('checks');
    const methods = this.#rpcMethods;
    new Counter({
      name: 'strata_rpc_requests_total',
      help: 'JSON-RPC calls by method and outcome (ok or error); methods the node does not serve count as "unknown".',
      labelNames: ['method', 'outcome'],
      registers,
      collect() {
        for (const [method, counts] of methods) {
          if (counts.ok > 0) this.inc({ method, outcome: 'ok' }, counts.ok);
          if (counts.error > 0) this.inc({ method, outcome: 'error' }, counts.error);
          counts.ok = counts.error = 0;
        }
      },
    });
    this.#rpcLatency = new CompactHistogram({
      name: 'strata_rpc_request_duration_seconds',
      help: 'JSON-RPC call latency by method.',
      labelName: 'method',
      buckets: RPC_BUCKETS,
      registry: this.registry,
    });
    this.#traces = new Histogram({
      name: 'strata_trace_duration_seconds',
      help: 'debug_trace* calls by method and outcome, and their duration.',
      labelNames: ['method', 'outcome'],
      buckets: RPC_BUCKETS,
      registers,
    });
  }

  /** Records how long one stage of one block took. */
  observeBlockStage(stage: BlockStageName, seconds: number): void {
    this.#blockStage.observe({ stage }, seconds);
  }

  /** Records one transaction's admission: its sender recovery and the rest of its checks. */
  observeAdmission(recoverSeconds: number, checksSeconds: number): void {
    this.#admissionRecover.observe(recoverSeconds);
    this.#admissionChecks.observe(checksSeconds);
  }

  /** Records one trim of the C heap: how far it lowered the resident size, bytes. */
  observeNativeHeapTrim(releasedBytes: number): void {
    this.#heapTrimmed.inc(releasedBytes);
  }

  /** Records one JSON-RPC call; `method` is undefined for a method the node does not serve. */
  observeRpc(method: string | undefined, seconds: number, ok: boolean): void {
    const label = method ?? UNKNOWN_METHOD_LABEL;
    let entry = this.#rpcMethods.get(label);
    if (entry === undefined) this.#rpcMethods.set(label, (entry = { latency: this.#rpcLatency.series(label), ok: 0, error: 0 }));
    if (ok) entry.ok += 1;
    else entry.error += 1;
    entry.latency.observe(seconds);
    if (label.startsWith('debug_trace')) this.#traces.observe({ method: label, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  /** The exposition text of a scrape and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
