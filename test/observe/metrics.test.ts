/**
 * The metrics of a real node: `/metrics` on the configured port, scraped twice and parsed as
 * Prometheus text; the values move with the node (height, RPC calls by method, unknown methods
 * collapsed into one label, traces, block stage timings) and the process defaults are there.
 */
import t from 'tap';
import { scrapeMemoryReading } from '../../bench/soak/memory-parts.js';
import { loadConfig } from '../../src/config/index.js';
import { NodeMetrics } from '../../src/node/metrics.js';
import { initHome, startNode } from '../node/fixtures/node-process.js';
import { rpcResult } from '../node/fixtures/rpc-client.js';
import { waitUntil } from '../sync/fixtures/network.js';
import { parseExposition, sampleKey, type Scrape } from './fixtures/prometheus.js';

t.test('/metrics of a running node', async (t) => {
  const home = await initHome(t, 200);
  const port = (await loadConfig(home.home)).node.instrumentation.prometheusListenAddr.port;
  const run = await startNode(t, home);
  const scrape = async (): Promise<Scrape> => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    t.equal(response.status, 200);
    t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return parseExposition(await response.text());
  };
  const value = (s: Scrape, name: string, labels?: Record<string, string>): number => s.samples.get(sampleKey(name, labels)) ?? NaN;

  const first = await scrape();
  for (const [name, type] of [
    ['strata_block_height', 'gauge'],
    ['strata_sync_lag_blocks', 'gauge'],
    ['strata_peers', 'gauge'],
    ['strata_mempool_size', 'gauge'],
    ['strata_mempool_capacity', 'gauge'],
    ['strata_execution_workers', 'gauge'],
    ['strata_execution_tasks_running', 'gauge'],
    ['strata_execution_tasks_queued', 'gauge'],
    ['strata_execution_worker_nursery_limit_bytes', 'gauge'],
    ['strata_execution_worker_starts_total', 'counter'],
    ['strata_trace_replayed_transactions_total', 'counter'],
    ['strata_execution_worker_cpu_seconds_total', 'counter'],
    ['strata_execution_worker_cpu_wait_seconds_total', 'counter'],
    ['strata_main_thread_cpu_seconds_total', 'counter'],
    ['strata_main_thread_cpu_wait_seconds_total', 'counter'],
    ['strata_execution_worker_heap_bytes', 'gauge'],
    ['strata_store_size_bytes', 'gauge'],
    ['strata_storage_memory_bytes', 'gauge'],
    ['strata_storage_memory_capacity_bytes', 'gauge'],
    ['strata_commit_tree_memory_bytes', 'gauge'],
    ['strata_call_cache_bytes', 'gauge'],
    ['strata_log_cache_bytes', 'gauge'],
    ['strata_decoded_block_cache_bytes', 'gauge'],
    ['strata_cache_capacity_bytes', 'gauge'],
    ['strata_native_heap_bytes', 'gauge'],
    ['strata_native_heap_arenas', 'gauge'],
    ['strata_native_heap_trimmed_bytes_total', 'counter'],
    ['strata_block_stage_duration_seconds', 'histogram'],
    ['strata_rpc_requests_total', 'counter'],
    ['strata_rpc_request_duration_seconds', 'histogram'],
    ['strata_trace_duration_seconds', 'histogram'],
    ['process_cpu_seconds_total', 'counter'],
    ['process_resident_memory_bytes', 'gauge'],
    ['nodejs_eventloop_lag_seconds', 'gauge'],
  ]) {
    t.equal(first.types.get(name!), type, `${name} is a ${type}`);
  }
  for (const pool of ['calls', 'traces']) {
    t.ok(value(first, 'strata_execution_workers', { pool }) >= 1, `${pool} workers counted`);
    t.ok(value(first, 'strata_execution_worker_starts_total', { pool }) >= value(first, 'strata_execution_workers', { pool }), `${pool} worker starts counted`);
    t.ok(value(first, 'strata_execution_worker_nursery_limit_bytes', { pool }) >= 12 * 1024 * 1024, `${pool} workers' nursery limits reported`);
    // Each worker loaded its modules and made a VM before it was ready: that took CPU time.
    t.ok(value(first, 'strata_execution_worker_cpu_seconds_total', { pool }) > 0.01, `${pool} workers' CPU time read from their threads`);
    t.ok(value(first, 'strata_execution_worker_cpu_wait_seconds_total', { pool }) >= 0, `${pool} workers' wait for a CPU read`);
  }
  const mainCpu = value(first, 'strata_main_thread_cpu_seconds_total');
  // Starting (loading the modules, opening the stores) alone takes the main thread this long.
  t.ok(mainCpu > 0.1, `the main thread's CPU time read: ${mainCpu} s`);
  t.ok(value(first, 'strata_main_thread_cpu_wait_seconds_total') >= 0, 'the main thread\'s wait for a CPU read');
  t.equal(value(first, 'strata_peers'), 0, 'a lone validator has no peers');
  t.equal(value(first, 'strata_sync_lag_blocks'), 0);
  t.ok(value(first, 'strata_store_size_bytes', { store: 'committer.db' }) >= 0, 'the SC store is measured');
  for (const store of ['blockstore', 'pebbledb', 'flatkv']) t.ok(value(first, 'strata_store_size_bytes', { store }) > 0, `${store} has a size on disk`);
  // The default [storage] budget, shared by every store: its memtables hold the blocks written so far.
  t.equal(value(first, 'strata_storage_memory_capacity_bytes', { kind: 'block_cache' }), 128 * 1024 * 1024, 'block-cache-size-mb = 128');
  t.equal(value(first, 'strata_storage_memory_capacity_bytes', { kind: 'memtables' }), 64 * 1024 * 1024, 'write-buffer-size-mb = 64');
  t.ok(value(first, 'strata_storage_memory_bytes', { kind: 'memtables' }) > 0, 'the stores\' memtables are counted in the budget');
  t.ok(value(first, 'strata_storage_memory_bytes', { kind: 'block_cache' }) >= 0, 'the block cache is reported');
  t.equal(value(first, 'strata_cache_capacity_bytes', { cache: 'call_results' }), 2 * 1024 * 1024, 'the eth_call result cache holds at most 2 MiB');
  t.equal(value(first, 'strata_cache_capacity_bytes', { cache: 'logs' }), 32 * 1024 * 1024, 'the log cache holds at most 32 MiB');
  t.ok(value(first, 'strata_log_cache_bytes') >= 0, 'the log cache is reported');
  t.equal(value(first, 'strata_cache_capacity_bytes', { cache: 'decoded_blocks' }), 2 * 1024 * 1024, 'the decoded-block cache holds at most 2 MiB');
  t.ok(value(first, 'strata_decoded_block_cache_bytes') >= 0, 'the decoded-block cache is reported');
  // bench:soak reads the same gauges to tell caches filling their budgets from other growth.
  const { caches } = await scrapeMemoryReading(port, 0);
  t.same(
    [caches.blockCacheCapacity, caches.memtablesCapacity, caches.callResultsCapacity, caches.logsCapacity, caches.decodedBlocksCapacity],
    [128, 64, 2, 32, 2],
    'the soak reads each bounded cache\'s budget, MiB',
  );
  t.ok(caches.memtables > 0 && caches.memtables < 64, `and what the memtables hold: ${caches.memtables.toFixed(2)} MiB`);
  t.ok(value(first, 'strata_commit_tree_memory_bytes', { store: 'bank' }) > 0, 'the bank tree (genesis balances) is counted in memory');
  t.ok(value(first, 'strata_native_heap_bytes', { kind: 'in_use' }) > 1024 * 1024, 'the C heap in use is reported');
  t.ok(value(first, 'strata_native_heap_bytes', { kind: 'free' }) >= 0, 'the C heap held free is reported');
  t.ok(value(first, 'strata_native_heap_arenas') >= 1, 'malloc\'s arenas are counted');
  t.ok(value(first, 'strata_native_heap_trimmed_bytes_total') >= 0, 'the bytes the C heap\'s trims handed back are counted');

  // Blocks are produced: the height grows and each block stage is timed.
  const h0 = value(first, 'strata_block_height');
  await waitUntil('two more blocks', async () => Number(await rpcResult(home.http, 'eth_blockNumber')) >= h0 + 2);
  const calls0 = value(first, 'strata_rpc_requests_total', { method: 'eth_chainId', outcome: 'ok' }) || 0;
  const unknown0 = value(first, 'strata_rpc_requests_total', { method: 'unknown', outcome: 'error' }) || 0;
  await rpcResult(home.http, 'eth_chainId');
  await rpcResult(home.http, 'eth_chainId');
  for (const method of ['no_such_method', 'another_made_up_one']) {
    const r = await fetch(`http://127.0.0.1:${home.http}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    });
    t.match(await r.text(), /"error"/);
  }
  await rpcResult(home.http, 'debug_traceBlockByNumber', ['latest', {}]);
  await rpcResult(home.http, 'eth_call', [{ to: `0x${'11'.repeat(20)}` }, 'latest']);

  const second = await scrape();
  t.ok(value(second, 'strata_block_height') >= h0 + 2, `the height grew from ${h0}`);
  t.equal(value(second, 'strata_rpc_requests_total', { method: 'eth_chainId', outcome: 'ok' }), calls0 + 2, 'two eth_chainId calls counted');
  t.ok(value(second, 'strata_rpc_request_duration_seconds_count', { method: 'eth_chainId' }) >= 2, 'their latency observed');
  t.equal(value(second, 'strata_rpc_requests_total', { method: 'unknown', outcome: 'error' }), unknown0 + 2, 'unknown methods share one label');
  t.notOk([...second.samples.keys()].some((k) => k.includes('no_such_method')), 'an unknown method name never becomes a label');
  t.equal(value(second, 'strata_trace_duration_seconds_count', { method: 'debug_traceBlockByNumber', outcome: 'ok' }), 1, 'the trace counted');
  for (const pool of ['calls', 'traces']) {
    const [before, after] = [first, second].map((s) => value(s, 'strata_execution_worker_cpu_seconds_total', { pool }));
    t.ok(after! > before!, `${pool} workers' CPU time grew with the ${pool === 'calls' ? 'eth_call' : 'trace'} they ran: ${before} → ${after}`);
  }
  t.ok(value(second, 'strata_main_thread_cpu_seconds_total') > mainCpu, 'the main thread\'s CPU time grew');
  for (const stage of ['execute', 'sc_commit', 'ss_apply']) {
    t.ok(value(second, 'strata_block_stage_duration_seconds_count', { stage }) >= 2, `${stage} timed per block`);
    t.ok(value(second, 'strata_block_stage_duration_seconds_sum', { stage }) > 0, `${stage} took time`);
  }
  // Each worker reports its V8 heap every few seconds; the gauge sums a pool's workers.
  let heaps = second;
  await waitUntil('the workers report their heaps', async () => {
    heaps = parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    return ['calls', 'traces'].every((pool) => value(heaps, 'strata_execution_worker_heap_bytes', { pool, kind: 'total' }) > 0);
  });
  for (const pool of ['calls', 'traces']) {
    const [used, total, young] = ['used', 'total', 'young'].map((kind) => value(heaps, 'strata_execution_worker_heap_bytes', { pool, kind }));
    t.ok(used! > 1024 * 1024 && used! <= total!, `${pool} workers' heaps: ${(used! / 2 ** 20).toFixed(1)} of ${(total! / 2 ** 20).toFixed(1)} MiB used`);
    t.ok(young! > 0 && young! < total!, `${pool} workers' young generations: ${(young! / 2 ** 20).toFixed(1)} MiB of it`);
    t.ok(value(heaps, 'strata_execution_worker_heap_bytes', { pool, kind: 'external' }) >= 0, `${pool} workers' external memory reported`);
  }
  const { workerHeapsByPool } = await scrapeMemoryReading(port, 0);
  for (const pool of ['calls', 'traces']) {
    const heap = workerHeapsByPool[pool];
    t.ok(heap !== undefined && heap.used > 1 && heap.used <= heap.total, `the soak reads the ${pool} pool's heaps: ${heap?.used.toFixed(1)} of ${heap?.total.toFixed(1)} MiB used`);
    t.ok(heap !== undefined && heap.young > 0 && heap.young < heap.total, `and their young generations: ${heap?.young.toFixed(1)} MiB`);
  }
  t.equal(await run.stop(), 0);
});

t.test('two nodes in one process keep separate registries', async (t) => {
  const sources = { height: () => 1, lag: () => 0, peers: () => 0, mempoolSize: () => 0, mempoolCapacity: 10, pools: {}, dataDir: '/nonexistent',
    storageMemory: () => ({ blockCacheBytes: 0, blockCachePinnedBytes: 0, memtableBytes: 0, blockCacheCapacity: 1, writeBufferCapacity: 1 }),
    commitTreeMemory: () => ({}),
    callCacheBytes: () => 0,
    logCacheBytes: () => 0,
    decodedBlockBytes: () => 0,
    cacheCapacities: { call_results: 0, logs: 0, decoded_blocks: 0 },
    nativeHeap: () => ({ arenaBytes: 0, mmappedBytes: 0, inUseBytes: 0, freeBytes: 0 }),
    nativeHeapArenas: () => 1 };
  const a = new NodeMetrics(sources);
  const b = new NodeMetrics({ ...sources, height: () => 2 });
  a.observeRpc('eth_call', 0.01, true);
  const [sa, sb] = [parseExposition((await a.scrape()).body), parseExposition((await b.scrape()).body)];
  t.equal(sa.samples.get('strata_block_height'), 1);
  t.equal(sb.samples.get('strata_block_height'), 2);
  t.equal(sa.samples.get(sampleKey('strata_rpc_requests_total', { method: 'eth_call', outcome: 'ok' })), 1);
  t.equal(sb.samples.get(sampleKey('strata_rpc_requests_total', { method: 'eth_call', outcome: 'ok' })), undefined, 'a call on one node is not counted on the other');
});
