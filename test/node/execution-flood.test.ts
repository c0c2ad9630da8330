/**
 * Looping calls and traces cannot freeze the node: eth_call, eth_estimateGas and debug_trace*
 * run on execution workers, each bounded (rpc-evm-timeout, max-trace-timeout), while the main
 * thread keeps producing blocks and answering the consensus RPC. A real validator process is
 * flooded with calls that loop until they are stopped, and the block interval and /status
 * latency are sampled throughout.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Duration, loadConfig, renderAppToml, renderConfigToml } from '../../src/config/index.js';
import { initHome, startNode, type TestHome } from './fixtures/node-process.js';
import { rawRpc, rpcCall, type RpcAnswer } from './fixtures/rpc-client.js';

const BLOCK_MS = 300;
const MIB = 1024 * 1024;
/** V8's young-generation limit for a worker given none (what the base call worker runs with). */
const V8_DEFAULT_NURSERY = 48 * MIB;
/** JUMPDEST PUSH1 0 JUMP: runs until the gas runs out (about 2.5 s at the 50M gas cap). */
const LOOP = '0x5b600056';
/** A JavaScript tracer whose step() never returns. */
const LOOPING_TRACER = '{ step: function () { for (;;) {} }, fault: function () {}, result: function () { return 1; } }';

/** One request's answer from `home`'s EVM RPC. */
const call = (home: TestHome, method: string, params: unknown[]): Promise<RpcAnswer> => rpcCall(home.http, method, params);
/** A batch (or any body) posted to `home`'s EVM RPC, its parsed answer. */
const post = async (home: TestHome, body: unknown): Promise<unknown> => (await rawRpc(home.http, JSON.stringify(body))).json;

/** Calls until answered without error (at most 10 s): workers stopped at a deadline are replaced, and a replacement takes a moment to load. */
async function onceReplaced(home: TestHome, method: string, params: unknown[]): Promise<RpcAnswer> {
  let answer: RpcAnswer = {};
  for (let attempt = 0; attempt < 40; attempt++) {
    answer = await call(home, method, params);
    if (answer.error === undefined) return answer;
    await sleep(250);
  }
  return answer;
}

async function height(home: TestHome): Promise<number> {
  const status = (await (await fetch(`http://127.0.0.1:${home.rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
  return Number(status.result.sync_info.latest_block_height);
}

t.test('a flood of looping calls and traces leaves block production and /status unaffected', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const config = await loadConfig(home.home);
  const evm = { ...config.app.evm, executionWorkers: 1, rpcEvmTimeout: Duration.parse('1s'), maxTraceTimeout: Duration.parse('2s') };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm }));
  const instrumentation = { ...config.node.instrumentation, prometheus: true };
  writeFileSync(join(home.home, 'config', 'config.toml'), renderConfigToml({ ...config.node, instrumentation }));
  const metricsUrl = `http://127.0.0.1:${instrumentation.prometheusListenAddr.port}/metrics`;
  const node = await startNode(t, home);
  t.teardown(() => node.stop());
  while ((await height(home)) < 2) await sleep(50);

  // Watch the node from outside while it is flooded: each /status answer's latency, and when
  // the height moved.
  const latencies: number[] = [];
  const heightSeenAt: Array<{ height: number; at: number }> = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const started = performance.now();
      const h = await height(home);
      latencies.push(performance.now() - started);
      if (heightSeenAt.length === 0 || heightSeenAt[heightSeenAt.length - 1]!.height !== h) heightSeenAt.push({ height: h, at: performance.now() });
      await sleep(25);
    }
  })();

  const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_call', params: [{ data: LOOP }, 'latest'] }));
  const duringFlood = sleep(500).then(async () => (await fetch(metricsUrl)).text());
  // The call pool's nursery limits once a burst worker is running: scraped until one is.
  const nurseries = (async () => {
    for (let i = 0; i < 40; i++) {
      await sleep(50);
      const text = await (await fetch(metricsUrl)).text();
      const limit = Number(/^strata_execution_worker_nursery_limit_bytes\{pool="calls"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      if (limit > V8_DEFAULT_NURSERY) return { limit, workers: Number(/^strata_execution_workers\{pool="calls"\} (\d+)$/m.exec(text)?.[1] ?? 0) };
    }
    return undefined;
  })();
  const floodStarted = performance.now();
  let batchMs = 0;
  const flood = await Promise.all([
    (post(home, batch) as Promise<RpcAnswer[]>).then((answers) => {
      batchMs = performance.now() - floodStarted;
      return answers;
    }),
    ...Array.from({ length: 6 }, () => call(home, 'eth_call', [{ data: LOOP }, 'latest'])),
    ...Array.from({ length: 3 }, () => call(home, 'eth_estimateGas', [{ data: LOOP }])),
    ...Array.from({ length: 4 }, () => call(home, 'debug_traceCall', [{ data: LOOP }, 'latest', { tracer: LOOPING_TRACER, timeout: '2s' }])),
  ]);
  await sleep(1000);
  watching = false;

  await watcher;

  const metrics = await duringFlood;
  const sample = (name: string, pool: string) => Number(new RegExp(`^${name}\\{pool="${pool}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? -1);
  t.ok(sample('strata_execution_tasks_running', 'calls') >= 1, 'the metrics show calls running on workers during the flood');
  // Every call loops, so the one base worker is stuck on a long task while calls wait: the pool grows.
  t.ok(sample('strata_execution_workers', 'calls') >= 2 && sample('strata_execution_workers', 'calls') <= 5, 'the call pool grew past its base worker, to at most four more');
  t.ok(sample('strata_execution_tasks_queued', 'calls') >= 0, 'and how many calls wait');
  t.ok(sample('strata_execution_tasks_running', 'traces') >= 1, 'and traces running on workers');
  // The base call worker keeps V8's nursery; each worker beyond it gets the small burst one.
  const grown = await nurseries;
  t.ok(grown !== undefined, 'a burst call worker ran during the flood');
  if (grown) {
    const mib = grown.limit / MIB;
    t.ok(mib <= 48 + (grown.workers - 1) * 12, `the call pool's nursery limits (${mib} MiB over ${grown.workers} workers) give burst workers 12 MiB, the base one V8's 48`);
  }

  const [batchAnswers, ...singles] = flood as [RpcAnswer[], ...RpcAnswer[]];
  const calls = [...batchAnswers, ...singles.slice(0, 9)];
  for (const answer of calls) {
    const { code, message } = answer.error ?? { code: 0, message: 'no error' };
    t.ok(
      (code === -32000 && message === 'execution aborted (timeout = 1s)') || code === -32005,
      `a looping call ends in the timeout or is refused as busy (got ${code} ${message})`,
    );
  }
  t.ok(calls.filter((a) => a.error?.message === 'execution aborted (timeout = 1s)').length >= 1, 'calls are stopped at rpc-evm-timeout');
  // The batch's calls share the wall clock (each deadline counts from submission): 20 loops are
  // answered within about one rpc-evm-timeout, not twenty of them one after another.
  t.ok(batchMs < 5000, `the batch of 20 looping calls was answered in ${batchMs.toFixed(0)} ms`);
  for (const answer of singles.slice(9)) {
    const { code, message } = answer.error ?? { code: 0, message: 'no error' };
    t.ok((code === -32000 && message.startsWith('execution timeout')) || code === -32005, `a looping trace ends in geth's trace timeout (got ${code} ${message})`);
  }

  const gaps = heightSeenAt.slice(1).map((seen, i) => seen.at - heightSeenAt[i]!.at);
  const maxGap = Math.max(...gaps);
  const maxLatency = Math.max(...latencies);
  t.ok(heightSeenAt.length >= 8, `blocks kept coming during the flood (${heightSeenAt.length} heights seen)`);
  t.ok(maxGap < 2500, `no gap between blocks longer than 2.5 s (longest ${maxGap.toFixed(0)} ms at timeout_commit ${BLOCK_MS} ms)`);
  t.ok(maxLatency < 1500, `/status answered within 1.5 s throughout (slowest ${maxLatency.toFixed(0)} ms over ${latencies.length} requests)`);

  // The workers that were stopped were replaced: calls and traces work again, with the right answers.
  const returned = await onceReplaced(home, 'eth_call', [{ data: '0x600160005260206000f3' }, 'latest']);
  t.equal(returned.result, `0x${'0'.repeat(63)}1`, 'eth_call runs creation code and returns what it returns');
  const estimate = await call(home, 'eth_estimateGas', [{ from: '0x0000000000000000000000000000000000000001', to: '0x000000000000000000000000000000000000abcd', value: '0x0' }]);
  t.equal(estimate.result, '0x5208', 'a plain transfer is estimated at 21000');
  const traced = await onceReplaced(home, 'debug_traceCall', [{ data: '0x600160005260206000f3' }, 'latest', { tracer: 'callTracer' }]);
  t.match(traced.result, { type: 'CREATE', output: '0x0000000000000000000000000000000000000000000000000000000000000001' }, 'a callTracer trace of the same call');

  // The looping calls gave up at their deadline inside the EVM, so no call worker had to be
  // terminated: the pool started its base worker and at most four for the burst, not one per
  // stopped call (29 of them).
  const after = await (await fetch(metricsUrl)).text();
  const starts = Number(/^strata_execution_worker_starts_total\{pool="calls"\} (\d+)$/m.exec(after)?.[1] ?? -1);
  t.ok(starts >= 1 && starts <= 5, `no call worker was replaced (${starts} started)`);
});

t.test('calls beyond what the workers can queue are refused at once as a limit (-32005)', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const config = await loadConfig(home.home);
  const evm = { ...config.app.evm, executionWorkers: 1, rpcEvmTimeout: Duration.parse('1s') };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm }));
  const node = await startNode(t, home);
  t.teardown(() => node.stop());
  while ((await height(home)) < 1) await sleep(50);
  // One worker queues 256 calls; five more run at most (the base worker and four added).
  const batch = Array.from({ length: 400 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_call', params: [{ data: LOOP }, 'latest'] }));
  const answers = (await post(home, batch)) as RpcAnswer[];
  const busy = answers.filter((a) => a.error?.code === -32005);
  const timedOut = answers.filter((a) => a.error?.message === 'execution aborted (timeout = 1s)');
  t.equal(busy.length + timedOut.length, 400, 'every looping call is refused or stopped');
  t.ok(busy.length >= 400 - 256 - 5, `the calls past the queue are refused (${busy.length} refused, ${timedOut.length} stopped)`);
  t.match(busy[0]?.error?.message, /^call rejected: every execution worker is busy and 256 calls are queued; retry later or raise execution-workers$/);
  const after = await onceReplaced(home, 'eth_call', [{ data: '0x600160005260206000f3' }, 'latest']);
  t.same(after, { jsonrpc: '2.0', id: 1, result: `0x${'0'.repeat(63)}1` }, 'calls work again afterwards');
});

t.test('a trace timeout above max-trace-timeout is refused before anything runs', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const node = await startNode(t, home);
  t.teardown(() => node.stop());
  const refused = await call(home, 'debug_traceCall', [{ data: LOOP }, 'latest', { tracer: LOOPING_TRACER, timeout: '9223372036854775807ns' }]);
  t.same(refused.error, {
    code: -32000,
    message: 'trace timeout 9223372036854775807ns is longer than this node allows (max-trace-timeout = 30s); ask for 30s or less',
  });
});

t.test('before the first block, calls run on a worker against the genesis state', async (t) => {
  const home = await initHome(t, 60_000);
  const node = await startNode(t, home);
  t.teardown(() => node.stop());
  t.equal((await call(home, 'eth_blockNumber', [])).result, '0x0', 'no block yet');
  const genesis = JSON.parse(readFileSync(join(home.home, 'config', 'genesis.json'), 'utf8')) as { accounts: Array<{ address: string }> };
  const funded = genesis.accounts[0]!.address;
  const balance = (await call(home, 'eth_getBalance', [funded, 'latest'])).result as string;
  // PUSH20 <address> BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: the account's balance, as the EVM sees it.
  const readBalance = `0x73${funded.slice(2)}3160005260206000f3`;
  const seen = await call(home, 'eth_call', [{ data: readBalance }, 'latest']);
  t.ok(BigInt(balance) > 0n, 'the account is funded at genesis');
  t.same(seen, { jsonrpc: '2.0', id: 1, result: `0x${BigInt(balance).toString(16).padStart(64, '0')}` }, 'the call sees the genesis balance');
  const started = performance.now();
  const looping = call(home, 'eth_call', [{ data: LOOP }, 'latest']);
  await sleep(300);
  const status = performance.now();
  await height(home);
  t.ok(performance.now() - status < 1000, 'the consensus RPC answers while the looping call runs');
  t.match((await looping).error, { code: -32000 }, 'the loop ends in an error');
  t.ok(performance.now() - started > 300, 'and it did run meanwhile');
});
