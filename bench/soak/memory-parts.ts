/**
 * Where the node's resident memory sits, read from its own `/metrics` next to its VmRSS, so a
 * soak can say which part grew: the V8 heaps (main thread, execution workers), memiavl's trees
 * (state held until the next SC snapshot), RocksDB's budgeted block cache and memtables, the
 * rest of the C heap in use, what malloc holds free, and what none of these cover (thread
 * stacks, code, mapped files); and how full the bounded caches within those parts are, so a
 * soak can tell memory filling a budget from memory that has none.
 */
import { scrapeMetrics, type MetricSample } from '../metrics-text.js';

/** One reading of the parts, MiB. */
export interface MemoryParts {
  rss: number;
  v8Main: number;
  v8Workers: number;
  commitTrees: number;
  rocksdbCaches: number;
  nativeOtherInUse: number;
  nativeFree: number;
  unattributed: number;
}

const MIB = 1024 * 1024;

/** Sums the samples of `name` whose labels include `match`. */
function sum(samples: readonly MetricSample[], name: string, match: Record<string, string> = {}): number {
  let total = 0;
  for (const sample of samples) {
    if (sample.name === name && Object.entries(match).every(([k, v]) => sample.labels[k] === v)) total += sample.value;
  }
  return total;
}

/**
 * The node's bounded caches, MiB: what each holds and the budget it fills toward. RocksDB's are
 * exact (and part of `rocksdbCaches`); the call and log caches are the node's own estimates of
 * JavaScript objects inside `v8Main`.
 */
export interface BoundedCaches {
  blockCache: number;
  blockCacheCapacity: number;
  memtables: number;
  memtablesCapacity: number;
  callResults: number;
  callResultsCapacity: number;
  logs: number;
  logsCapacity: number;
  decodedBlocks: number;
  decodedBlocksCapacity: number;
}

/** One pool's worker heaps, MiB: allocated to objects, reserved, and of that the young generations. */
export interface WorkerHeaps {
  used: number;
  total: number;
  young: number;
}

/** One scrape of the node's memory: its parts, and the execution workers each pool runs. */
export interface MemoryReading {
  parts: MemoryParts;
  caches: BoundedCaches;
  /** The main thread's V8 heap (`v8Main`) by V8 space (new, old, code, large objects, …), MiB. */
  v8MainBySpace: Record<string, number>;
  /** What is allocated in each of those spaces, live or not yet collected (the rest is free room V8 keeps), MiB. */
  v8MainUsedBySpace: Record<string, number>;
  /** Worker threads by pool: a pool grows past its base while long tasks hold every worker, each added one with its own V8 heap. */
  workersByPool: Record<string, number>;
  /** Each pool's worker heaps summed, MiB: `total` reserved by V8 (`young`: of it, the young generations), `used` allocated to objects (live or not yet collected). */
  workerHeapsByPool: Record<string, WorkerHeaps>;
}

/** The node's memory now: `/metrics` on `port`, with `rssMiB` read at the same moment. */
export async function scrapeMemoryReading(port: number, rssMiB: number): Promise<MemoryReading> {
  const samples = await scrapeMetrics(port);
  const mib = (bytes: number) => bytes / MIB;
  const commitTrees = mib(sum(samples, 'strata_commit_tree_memory_bytes'));
  const rocksdbCaches = mib(sum(samples, 'strata_storage_memory_bytes', { kind: 'block_cache' }) + sum(samples, 'strata_storage_memory_bytes', { kind: 'memtables' }));
  const parts = {
    v8Main: mib(sum(samples, 'nodejs_heap_size_total_bytes')),
    v8Workers: mib(sum(samples, 'strata_execution_worker_heap_bytes', { kind: 'total' })),
    commitTrees,
    rocksdbCaches,
    nativeOtherInUse: mib(sum(samples, 'strata_native_heap_bytes', { kind: 'in_use' })) - commitTrees - rocksdbCaches,
    nativeFree: mib(sum(samples, 'strata_native_heap_bytes', { kind: 'free' })),
  };
  const attributed = Object.values(parts).reduce((a, b) => a + b, 0);
  const storage = (name: string, kind: string) => mib(sum(samples, name, { kind }));
  const caches: BoundedCaches = {
    blockCache: storage('strata_storage_memory_bytes', 'block_cache'),
    blockCacheCapacity: storage('strata_storage_memory_capacity_bytes', 'block_cache'),
    memtables: storage('strata_storage_memory_bytes', 'memtables'),
    memtablesCapacity: storage('strata_storage_memory_capacity_bytes', 'memtables'),
    callResults: mib(sum(samples, 'strata_call_cache_bytes')),
    callResultsCapacity: mib(sum(samples, 'strata_cache_capacity_bytes', { cache: 'call_results' })),
    logs: mib(sum(samples, 'strata_log_cache_bytes')),
    logsCapacity: mib(sum(samples, 'strata_cache_capacity_bytes', { cache: 'logs' })),
    decodedBlocks: mib(sum(samples, 'strata_decoded_block_cache_bytes')),
    decodedBlocksCapacity: mib(sum(samples, 'strata_cache_capacity_bytes', { cache: 'decoded_blocks' })),
  };
  const workersByPool: Record<string, number> = {};
  const workerHeapsByPool: Record<string, WorkerHeaps> = {};
  const v8MainBySpace: Record<string, number> = {};
  const v8MainUsedBySpace: Record<string, number> = {};
  for (const sample of samples) {
    if (sample.name === 'strata_execution_workers') workersByPool[sample.labels['pool'] ?? ''] = sample.value;
    const kind = sample.labels['kind'];
    if (sample.name === 'strata_execution_worker_heap_bytes' && (kind === 'used' || kind === 'total' || kind === 'young')) {
      const heaps = (workerHeapsByPool[sample.labels['pool'] ?? ''] ??= { used: 0, total: 0, young: 0 });
      heaps[kind] = mib(sample.value);
    }
    if (sample.name === 'nodejs_heap_space_size_total_bytes') v8MainBySpace[sample.labels['space'] ?? ''] = mib(sample.value);
    if (sample.name === 'nodejs_heap_space_size_used_bytes') v8MainUsedBySpace[sample.labels['space'] ?? ''] = mib(sample.value);
  }
  return { parts: { rss: rssMiB, ...parts, unattributed: rssMiB - attributed }, caches, v8MainBySpace, v8MainUsedBySpace, workersByPool, workerHeapsByPool };
}

/** Each figure's growth from `before` to `after`, MiB, rounded to 0.1 (a figure missing before counts from 0). */
export function partsGrowth<T extends object>(before: T, after: T): T {
  const from = before as Record<string, number>;
  return Object.fromEntries(Object.entries(after as Record<string, number>).map(([k, v]) => [k, Math.round((v - (from[k] ?? 0)) * 10) / 10])) as T;
}
