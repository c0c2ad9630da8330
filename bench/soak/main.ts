/**
 * `npm run bench:soak [-- --minutes N] [--json] [--without KIND,…] [--cpu-prof DIR] [--node-args="…"]`
 *
 * A soak: one validator (1 s blocks, 127.0.0.1 only, a home made by `stratad init` as in
 * bench:node) under a steady mixed load for N minutes (default 10, fractions allowed): signed
 * EIP-1559 ETH and ERC-20 transfers, eth_getBalance / eth_getBlockByNumber / eth_getLogs,
 * eth_call `balanceOf` of varying holders, `callTracer` traces of recent transactions and 2%
 * hostile requests (see workload.ts and hostile.ts for the mix and rates).
 *
 * `--new-account-share F` (default 0.1) is the share of ETH transfers that pay an address
 * never paid before; the others pay one of the addresses paid so far. The state therefore
 * grows by 19 accounts a second at the default rates, as a chain does whose traffic mostly
 * moves value between existing accounts; `--new-account-share 1` grows it by 190 a second
 * (114,000 accounts in a 10-minute run), and the memory that holds that new state (memiavl's
 * tree until the next SC snapshot, RocksDB's caches filling to their budget) then shows in
 * the RSS growth next to anything that leaks.
 *
 * Figures and goals:
 * - `soakBlockIntervalP99Ms` ≤ 1.5 × `timeout_commit`: block intervals as a client sees them
 *   (arrival of each block at an `eth_blockNumber` poll every 20 ms);
 * - `soakRpcP99Ms`: latency of the ordinary (non-hostile) requests, all kinds together;
 * - `soakRssGrowthMiB` ≤ 50 over 10 minutes: the node's VmRSS at the end of the load minus
 *   after the warm-up (the first minute; 25% of the run for runs under 2 minutes), with the
 *   growth of each part the node's `/metrics` tells apart (memory-parts.ts); next to it
 *   `rssGrowthMedianMiB`, the same growth between the medians of the last window and the
 *   one after the warm-up (each as long as the warm-up), which a GC cycle swings far less;
 *   `rssGrowthHalvesMiB` splits that growth at the middle of the time after the warm-up (first /
 *   second half): alike in both for a leak, less in the second for caches and heaps filling up;
 * - `soakErrors` = 0: transport errors, non-JSON answers, errors where success was expected,
 *   hostile requests that were not refused, transactions that never landed, a node crash.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig } from '../../src/config/index.js';
import { benchNodeArgs, initNodeHome, startNode, type NodeHome, type RunningProcess } from '../node/node-process.js';
import { deployToken, signTokenDeploy } from '../node/reads.js';
import { hex, signEip1559 } from '../node/sign.js';
import { emitReport, rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from '../rpc/cpu.js';
import { submitAndMine } from '../trace/submit.js';
import { quantile } from '../trace/phase.js';
import { watchBlocks, type BlockWatcher } from './blocks.js';
import { HOSTILE_KINDS } from './hostile.js';
import { partsGrowth, scrapeMemoryReading, type BoundedCaches, type MemoryReading, type WorkerHeaps } from './memory-parts.js';
import { DEFAULT_MIX, NORMAL_KINDS, runLoad, type Kind, type LoadLog, type SoakError, type SoakSender } from './workload.js';

const EVM_CHAIN_ID = 713715;
const BLOCK_MS = 1000;
const TOKEN_SENDERS = 10;
const ETH_SENDERS = 190;
/** Each Token sender gets this much of the deployer's supply before the load starts. */
const TOKEN_FUNDING = 10n ** 24n;
const RSS_SAMPLE_MS = 2_000;
/** After the load, transactions still pending get this long to land. */
const DRAIN_MS = 30_000;
const QUIET_PERCENT = 5;
const QUIET_WAIT_MS = 20_000;
const GOAL_INTERVAL_FACTOR = 1.5;
const GOAL_RSS_GROWTH_MIB = 50;
/** Longest `--minutes` accepted: a day. */
const MAX_MINUTES = 24 * 60;

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** One RSS sample, MiB: the total and its anonymous (heaps) and file-backed (mapped files) parts. */
interface RssSample {
  at: number;
  mib: number;
  anonMiB: number;
  fileMiB: number;
}

/** VmRSS of `pid` and its parts in MiB, or null once the process is gone or a zombie. */
function rssOf(pid: number): Omit<RssSample, 'at'> | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    if (/^State:\s+Z/m.test(status)) return null;
    const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
    const mib = kib('VmRSS') / 1024;
    return Number.isFinite(mib) ? { mib, anonMiB: kib('RssAnon') / 1024, fileMiB: kib('RssFile') / 1024 } : null;
  } catch {
    return null;
  }
}

/** The median RSS sample between `fromMs` and `toMs` of the load, MiB. */
function windowMedian(samples: readonly RssSample[], fromMs: number, toMs: number): number {
  return quantile(samples.filter((r) => r.at >= fromMs && r.at <= toMs).map((r) => r.mib).sort((a, b) => a - b), 0.5);
}

/**
 * The RSS growth between two windows as long as the warm-up: the median sample of the last one
 * before `endMs` minus that of the one right after the warm-up. A single sample lands anywhere
 * in a garbage collector's cycle (V8 lets a heap grow by half its live size before collecting),
 * so two single samples can differ by tens of MiB on the same node; a window's median moves far less.
 * NaN when the run is too short for two windows that do not overlap.
 */
function windowedGrowth(samples: readonly RssSample[], windowMs: number, endMs: number): number {
  if (endMs < 3 * windowMs) return Number.NaN;
  return windowMedian(samples, endMs - windowMs, endMs) - windowMedian(samples, windowMs, 2 * windowMs);
}

/**
 * The windowed growth split at the middle of the time after the warm-up (a third window there):
 * a leak grows alike in both halves, caches and heaps filling toward their bounds grow less in
 * the second. NaN for both when the run is too short for three windows that do not overlap.
 */
function halvesGrowth(samples: readonly RssSample[], windowMs: number, endMs: number): { first: number; second: number } {
  if (endMs < 4 * windowMs) return { first: Number.NaN, second: Number.NaN };
  const middle = windowMs + (endMs - windowMs) / 2;
  const start = windowMedian(samples, windowMs, 2 * windowMs);
  const mid = windowMedian(samples, middle - windowMs / 2, middle + windowMs / 2);
  const end = windowMedian(samples, endMs - windowMs, endMs);
  return { first: mid - start, second: end - mid };
}

/** p50/p99/max of unsorted values, ms (NaN when there are none). */
function spread(values: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN };
}

const num = (x: number) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);
const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
/** The bounded caches after the warm-up and at the end, against their budgets. */
function cachesLine(warm: BoundedCaches, end: BoundedCaches): string {
  const fill = (name: string, from: number, to: number, budget: string) => `${name} ${fmt(from)} → ${fmt(to)} (${budget})`;
  return `bounded caches, MiB after warm-up → at the end (budget): ${[
    fill('RocksDB block cache', warm.blockCache, end.blockCache, fmt(end.blockCacheCapacity, 0)),
    fill('memtables', warm.memtables, end.memtables, fmt(end.memtablesCapacity, 0)),
    fill('eth_call results, est.', warm.callResults, end.callResults, fmt(end.callResultsCapacity, 0)),
    fill('logs, est.', warm.logs, end.logs, fmt(end.logsCapacity, 0)),
    fill('decoded blocks, est.', warm.decodedBlocks, end.decodedBlocks, fmt(end.decodedBlocksCapacity, 0)),
  ].join(' · ')}`;
}

/** Each pool's worker heaps' growth, reserved (`total`, of it `young`) and allocated (`used`), MiB. */
function workerHeapsGrowth(before: Record<string, WorkerHeaps>, after: Record<string, WorkerHeaps>): Record<string, WorkerHeaps> {
  return Object.fromEntries(Object.entries(after).map(([pool, heaps]) => [pool, partsGrowth(before[pool] ?? { used: 0, total: 0, young: 0 }, heaps)]));
}

/** A growth figure with its sign. */
const signed = (x: number) => `${x >= 0 ? '+' : ''}${fmt(x)}`;

/** Deploys the Token from account 0 and gives each Token sender a share, both before timing. */
async function setUpToken(port: number, deployer: SoakSender, tokenSenders: readonly SoakSender[]): Promise<string> {
  const deploy = signTokenDeploy(deployer.privateKey, deployer.address, 0n, EVM_CHAIN_ID);
  await deployToken(port, deploy, deployer.address);
  const key = Buffer.from(deployer.privateKey.slice(2), 'hex');
  const txs = tokenSenders.map((s, i) => ({
    kind: `fund Token sender ${i}`,
    raw: hex(
      signEip1559(
        {
          chainId: BigInt(EVM_CHAIN_ID),
          nonce: BigInt(i + 1),
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          gasLimit: 100_000n,
          to: Buffer.from(deploy.address.slice(2), 'hex'),
          value: 0n,
          data: Buffer.from(`a9059cbb${s.address.slice(2).toLowerCase().padStart(64, '0')}${TOKEN_FUNDING.toString(16).padStart(64, '0')}`, 'hex'),
        },
        key,
      ),
    ),
  }));
  const receipts = await submitAndMine(port, txs);
  const failed = receipts.find((r) => r.status !== '0x1');
  if (failed) throw new Error(`funding a Token sender failed: ${failed.transactionHash}`);
  return deploy.address;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
      without: { type: 'string', default: '' },
      'cpu-prof': { type: 'string' },
      'node-args': { type: 'string', default: '' },
      'new-account-share': { type: 'string', default: '0.1' },
    },
  });
  // `--without k1,k2` drops request kinds from the mix, to tell which of them a figure comes from.
  const without = values.without.split(',').filter(Boolean) as Kind[];
  const unknown = without.filter((k) => !(k in DEFAULT_MIX));
  if (unknown.length) throw new RangeError(`--without: unknown request kind(s) ${unknown.join(', ')}; kinds are ${Object.keys(DEFAULT_MIX).join(', ')}`);
  const mix = Object.fromEntries(Object.entries(DEFAULT_MIX).map(([k, plan]) => [k, without.includes(k as Kind) ? { ...plan, perSecond: 0 } : plan])) as typeof DEFAULT_MIX;
  const minutes = Number(values.minutes);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_MINUTES) throw new RangeError(`--minutes must be a number in (0, ${MAX_MINUTES}], got ${values.minutes}`);
  const newAccountShare = Number(values['new-account-share']);
  if (!Number.isFinite(newAccountShare) || newAccountShare < 0 || newAccountShare > 1) throw new RangeError(`--new-account-share must be a number in [0, 1], got ${values['new-account-share']}`);
  const durationMs = minutes * 60_000;
  const warmupMs = durationMs >= 120_000 ? 60_000 : durationMs / 4;

  const accounts = devAccounts(1 + TOKEN_SENDERS + ETH_SENDERS);
  const asSender = (a: { privateKey: string; address: string }): SoakSender => ({ privateKey: a.privateKey, address: a.address, nonce: 0n });
  const deployer = asSender(accounts[0]!);
  const tokenSenders = accounts.slice(1, 1 + TOKEN_SENDERS).map(asSender);
  const ethSenders = accounts.slice(1 + TOKEN_SENDERS).map(asSender);
  const perSecond = Object.values(mix).reduce((s, k) => s + k.perSecond, 0);
  const hostilePerSecond = HOSTILE_KINDS.reduce((s, k) => s + mix[k].perSecond, 0);
  log(`bench:soak · ${minutes} min · ${rate(perSecond)} req/s scheduled (${mix.transfer.perSecond + mix.tokenTransfer.perSecond} tx/s, ${((hostilePerSecond / perSecond) * 100).toFixed(1)}% hostile, ${(newAccountShare * 100).toFixed(0)}% of ETH transfers to new accounts${without.length ? `, without ${without.join(', ')}` : ''}) · 1 validator, ${BLOCK_MS} ms timeout_commit`);

  const started: RunningProcess[] = [];
  let watcher: BlockWatcher | undefined;
  let sampler: NodeJS.Timeout | undefined;
  const stopAll = () => Promise.all(started.map((p) => p.stop()));
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    if (sampler) clearInterval(sampler);
    void Promise.resolve(watcher?.stop())
      .catch(() => {})
      .then(stopAll)
      .finally(() => {
        home?.remove();
        process.exit(130);
      });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let home: NodeHome | undefined;
  try {
    // The mempool holds far more than the load ever leaves pending (a few seconds of it).
    home = await initNodeHome({ devAccounts: accounts.length, blockMs: BLOCK_MS, mempoolSize: 20_000, evmChainId: EVM_CHAIN_ID });
    const config = await loadConfig(home.home);
    const limits = { maxBodyBytes: config.app.evm.maxBodyBytes, maxBatchSize: config.app.evm.maxBatchSize };
    const timeoutCommitMs = config.node.consensus.timeoutCommit.toMilliseconds();
    const metricsPort = config.node.instrumentation.prometheusListenAddr.port;
    const node = await startNode(home, benchNodeArgs(values['node-args'], values['cpu-prof']));
    started.push(node);
    log(`· node pid ${node.pid} on 127.0.0.1:${node.port} (max-body-bytes ${limits.maxBodyBytes}, max-batch-size ${limits.maxBatchSize})`);
    const token = await setUpToken(node.port, deployer, tokenSenders);
    log(`· Token at ${token}, ${TOKEN_SENDERS} Token senders funded, ${ETH_SENDERS} ETH senders (development accounts)`);

    const quiet = await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, [node.pid]);
    log(`· foreign CPU before the run ${quiet.toFixed(1)}%`);

    // RSS samples and liveness, every RSS_SAMPLE_MS from the start of the load.
    const rss: RssSample[] = [];
    let crashed = false;
    const loadStart = performance.now();
    const sample = () => {
      const now = rssOf(node.pid);
      if (now === null) crashed = true;
      else rss.push({ at: performance.now() - loadStart, ...now });
    };
    sample();
    sampler = setInterval(sample, RSS_SAMPLE_MS);
    // The memory at the end of the warm-up, to set against that at the end.
    const readingOf = async (): Promise<MemoryReading | undefined> => {
      const now = rssOf(node.pid);
      return now === null ? undefined : scrapeMemoryReading(metricsPort, now.mib).catch(() => undefined);
    };
    let warmReading: Promise<MemoryReading | undefined> = Promise.resolve(undefined);
    const warmTimer = setTimeout(() => (warmReading = readingOf()), warmupMs);
    const follow = await watchBlocks(node.port);
    watcher = follow;
    const cpuBefore = cpuSnapshot([node.pid]);
    const ownCpuBefore = process.cpuUsage();

    let lastReport = loadStart;
    const load: LoadLog = await runLoad(
      { port: node.port, chainId: EVM_CHAIN_ID, token, limits, ethSenders, tokenSenders, watcher, newAccountShare },
      durationMs,
      () => {
        // Progress once a minute, from the scheduler's tick.
        const now = performance.now();
        if (now - lastReport >= 60_000) {
          lastReport = now;
          const last = rss.at(-1);
          log(`  ${((now - loadStart) / 60_000).toFixed(1)} min · height ${follow.height()} · RSS ${fmt(last?.mib ?? Number.NaN)} MiB (anon ${fmt(last?.anonMiB ?? Number.NaN)}, file ${fmt(last?.fileMiB ?? Number.NaN)})`);
        }
        return crashed || interrupted;
      },
      mix,
    );
    const loadEnd = performance.now();
    sample();
    const rssEnd = rss.at(-1);
    clearTimeout(warmTimer);
    const [readingWarm, readingEnd] = [await warmReading, await readingOf()];
    const [partsWarm, partsEnd] = [readingWarm?.parts, readingEnd?.parts];
    const [workersWarm, workersEnd] = [readingWarm?.workersByPool, readingEnd?.workersByPool];
    const workerHeapsGrew = readingWarm && readingEnd ? workerHeapsGrowth(readingWarm.workerHeapsByPool, readingEnd.workerHeapsByPool) : undefined;
    const partsGrew = partsWarm && partsEnd ? partsGrowth(partsWarm, partsEnd) : undefined;
    const spacesGrew = readingWarm && readingEnd ? partsGrowth(readingWarm.v8MainBySpace, readingEnd.v8MainBySpace) : undefined;
    const spacesUseGrew = readingWarm && readingEnd ? partsGrowth(readingWarm.v8MainUsedBySpace, readingEnd.v8MainUsedBySpace) : undefined;
    const cpuAfter = cpuSnapshot([node.pid]);
    const ownCpu = process.cpuUsage(ownCpuBefore);

    // Transactions still in the mempool get DRAIN_MS to land (bounded; ends early on a crash).
    const drainUntil = performance.now() + DRAIN_MS;
    const pendingTxs = () => [...load.txs.keys()].filter((h) => follow.includedAt(h) === undefined);
    while (!crashed && pendingTxs().length > 0 && performance.now() < drainUntil) await sleep(200);
    clearInterval(sampler);
    sampler = undefined;
    const blocks = await follow.stop();
    watcher = undefined;

    const errors: SoakError[] = [...load.errors];
    const notIncluded = pendingTxs();
    for (const hash of notIncluded) errors.push({ kind: 'inclusion', category: 'notIncluded', message: `${hash} not in a block ${DRAIN_MS / 1000} s after the load` });
    if (blocks.errors > 0) errors.push({ kind: 'blockWatcher', category: 'transport', message: `${blocks.errors} block-watcher calls failed; first: ${blocks.firstError}` });
    // First, so the samples in the JSON and the table always carry the node's last output.
    if (crashed) errors.unshift({ kind: 'node', category: 'crash', message: `the node exited during the run: ${node.output().slice(-2_000)}` });

    const intervals = spread(blocks.intervals.filter((i) => i.at <= loadEnd).map((i) => i.ms));
    const includedAfter = [...load.txs].flatMap(([hash, sentAt]) => {
      const at = follow.includedAt(hash);
      return at === undefined ? [] : [at - sentAt];
    });
    const perKind = Object.fromEntries(
      (Object.keys(load.stats) as Kind[]).map((k) => {
        const s = load.stats[k];
        const d = spread(s.latenciesMs);
        return [k, { sent: s.sent, ok: s.ok, errors: s.errors, skipped: s.skipped, p50Ms: num(d.p50), p99Ms: num(d.p99), maxMs: num(d.max) }];
      }),
    );
    const normal = spread(NORMAL_KINDS.flatMap((k) => load.stats[k].latenciesMs));
    const all = spread((Object.keys(load.stats) as Kind[]).flatMap((k) => load.stats[k].latenciesMs));
    const warm = rss.find((r) => r.at >= warmupMs);
    const rssGrowth = warm && rssEnd ? rssEnd.mib - warm.mib : Number.NaN;
    const rssGrowthMedian = windowedGrowth(rss, warmupMs, loadEnd - loadStart);
    const rssHalves = halvesGrowth(rss, warmupMs, loadEnd - loadStart);
    const txSent = load.stats.transfer.sent + load.stats.tokenTransfer.sent;
    const byCategory: Record<string, number> = {};
    for (const e of errors) byCategory[`${e.kind}/${e.category}`] = (byCategory[`${e.kind}/${e.category}`] ?? 0) + 1;
    const inclusion = spread(includedAfter);
    const intervalGoal = GOAL_INTERVAL_FACTOR * timeoutCommitMs;
    const foreign = foreignCpuPercent(cpuBefore, cpuAfter);

    const output = {
      minutes,
      timeoutCommitMs,
      loadSeconds: num((loadEnd - loadStart) / 1000),
      interrupted,
      without,
      scheduledPerSecond: perSecond,
      hostileShare: num(hostilePerSecond / perSecond),
      newAccountShare,
      soakBlockIntervalP50Ms: num(intervals.p50),
      soakBlockIntervalP99Ms: num(intervals.p99),
      soakBlockIntervalMaxMs: num(intervals.max),
      soakBlockIntervalGoalMs: intervalGoal,
      soakBlocks: blocks.blocks,
      soakRpcP50Ms: num(normal.p50),
      soakRpcP99Ms: num(normal.p99),
      soakRpcAllP99Ms: num(all.p99),
      soakRssGrowthMiB: num(rssGrowth),
      soakRssGrowthGoalMiB: GOAL_RSS_GROWTH_MIB,
      rssGrowthMedianMiB: num(rssGrowthMedian),
      rssGrowthHalvesMiB: { first: num(rssHalves.first), second: num(rssHalves.second) },
      rssWarmupSeconds: warmupMs / 1000,
      rssAfterWarmupMiB: num(warm?.mib ?? Number.NaN),
      rssEndMiB: num(rssEnd?.mib ?? Number.NaN),
      rssPeakMiB: num(Math.max(...rss.map((r) => r.mib))),
      // Anonymous memory is the heaps (V8, native allocations); file-backed is mapped store files
      // (memiavl snapshots), which the kernel can drop and which grow with the state itself.
      rssAnonGrowthMiB: num(warm && rssEnd ? rssEnd.anonMiB - warm.anonMiB : Number.NaN),
      rssFileGrowthMiB: num(warm && rssEnd ? rssEnd.fileMiB - warm.fileMiB : Number.NaN),
      memoryAfterWarmupMiB: partsWarm,
      memoryEndMiB: partsEnd,
      soakRssGrowthByPartMiB: partsGrew,
      v8MainGrowthBySpaceMiB: spacesGrew,
      v8MainUsedGrowthBySpaceMiB: spacesUseGrew,
      // Growth that no budget covers: the RSS growth less that of RocksDB's block cache and
      // memtables, the one bounded part measured exactly (the call and log caches are estimates).
      rssGrowthOutsideStorageCachesMiB: num(partsGrew ? partsGrew.rss - partsGrew.rocksdbCaches : Number.NaN),
      boundedCachesAfterWarmupMiB: readingWarm?.caches,
      boundedCachesEndMiB: readingEnd?.caches,
      workerHeapGrowthByPoolMiB: workerHeapsGrew,
      executionWorkersAfterWarmup: workersWarm,
      executionWorkersEnd: workersEnd,
      rssSamples: rss.map((r) => [Math.round(r.at / 1000), Math.round(r.mib), Math.round(r.anonMiB), Math.round(r.fileMiB)]),
      soakErrors: errors.length,
      soakErrorsByKind: byCategory,
      soakErrorSamples: errors.slice(0, 10),
      soakTxSent: txSent,
      soakTxAccepted: load.txs.size,
      soakTxIncluded: load.txs.size - notIncluded.length,
      txInclusionP50Ms: num(inclusion.p50),
      txInclusionP99Ms: num(inclusion.p99),
      hostileSent: HOSTILE_KINDS.reduce((s, k) => s + load.stats[k].sent, 0),
      hostileRefused: HOSTILE_KINDS.reduce((s, k) => s + load.stats[k].ok, 0),
      perKind,
      foreignCpuPercent: num(foreign),
      // The load generator's own share of one core: it competes with the node for the same cores.
      loadGeneratorCpuPercentOfCore: num(((ownCpu.user + ownCpu.system) / 1000 / (loadEnd - loadStart)) * 100),
      colocated: 'load generator and node share the machine cores',
    };

    const met = (ok: boolean) => (ok ? 'met' : 'missed');
    const goals: string[][] = [
      ['figure', 'value', 'goal', ''],
      ['soakBlockIntervalP99Ms', fmt(intervals.p99), `≤ ${intervalGoal}`, met(intervals.p99 <= intervalGoal)],
      ['soakBlockIntervalMaxMs (p50)', `${fmt(intervals.max)} (${fmt(intervals.p50)})`, '', ''],
      ['soakRpcP99Ms (p50)', `${fmt(normal.p99, 2)} (${fmt(normal.p50, 2)})`, '', ''],
      ['soakRssGrowthMiB', fmt(rssGrowth), `≤ ${GOAL_RSS_GROWTH_MIB} / 10 min`, met(rssGrowth <= GOAL_RSS_GROWTH_MIB)],
      ['rssGrowthMedianMiB (window medians)', fmt(rssGrowthMedian), '', ''],
      ['rssGrowthHalvesMiB (first / second half)', `${fmt(rssHalves.first)} / ${fmt(rssHalves.second)}`, '', ''],
      ['soakErrors', String(errors.length), '0', met(errors.length === 0)],
      ['soakTxSent / accepted / included', `${rate(txSent)} / ${rate(load.txs.size)} / ${rate(load.txs.size - notIncluded.length)}`, '', ''],
      ['tx inclusion p50 / p99 (ms)', `${fmt(inclusion.p50, 0)} / ${fmt(inclusion.p99, 0)}`, '', ''],
    ];
    const kinds: string[][] = [['request kind', 'sent', 'ok', 'errors', 'skipped', 'p50 ms', 'p99 ms', 'max ms']];
    for (const [k, v] of Object.entries(perKind)) {
      kinds.push([k, rate(v.sent), rate(v.ok), rate(v.errors), rate(v.skipped), fmt(v.p50Ms ?? Number.NaN, 2), fmt(v.p99Ms ?? Number.NaN, 2), fmt(v.maxMs ?? Number.NaN, 1)]);
    }
    const errorLines = Object.entries(byCategory).map(([k, n]) => `  ${k}: ${n}`);
    const text = [
      table(goals),
      '',
      table(kinds),
      '',
      `${blocks.blocks} blocks · RSS ${fmt(warm?.mib ?? Number.NaN)} MiB after ${warmupMs / 1000} s warm-up → ${fmt(rssEnd?.mib ?? Number.NaN)} MiB at the end (peak ${fmt(output.rssPeakMiB ?? Number.NaN)}) · foreign CPU ${foreign.toFixed(1)}% · load generator ${fmt(output.loadGeneratorCpuPercentOfCore ?? Number.NaN, 0)}% of a core`,
      ...(partsGrew
        ? [`RSS growth by part (MiB): ${Object.entries(partsGrew).filter(([k]) => k !== 'rss').map(([k, v]) => `${k} ${signed(v)}`).join(' · ')}`]
        : []),
      ...(spacesGrew
        ? [`v8Main growth by V8 space, MiB (of it allocated to objects): ${Object.entries(spacesGrew).filter(([, v]) => v !== 0).map(([k, v]) => `${k} ${signed(v)} (${signed(spacesUseGrew?.[k] ?? Number.NaN)})`).join(' · ')}`]
        : []),
      ...(readingWarm && readingEnd ? [cachesLine(readingWarm.caches, readingEnd.caches)] : []),
      ...(workerHeapsGrew
        ? [`v8Workers growth by pool, MiB (of it allocated to objects; young generations): ${Object.entries(workerHeapsGrew).map(([pool, g]) => `${pool} ${signed(g.total)} (${signed(g.used)}; young ${signed(g.young)})`).join(' · ')}`]
        : []),
      ...(workersWarm && workersEnd
        ? [`execution workers by pool: ${Object.keys(workersEnd).map((pool) => `${pool} ${workersWarm[pool] ?? 0} after warm-up → ${workersEnd[pool]} at the end`).join(' · ')}`]
        : []),
      ...(errorLines.length ? ['unexpected outcomes:', ...errorLines, ...errors.slice(0, 5).map((e) => `  e.g. ${e.kind}/${e.category}: ${e.message}`)] : []),
    ].join('\n');
    emitReport(text, output, values.json);
  } finally {
    if (sampler) clearInterval(sampler);
    await watcher?.stop().catch(() => {});
    await stopAll();
    home?.remove();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:soak failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
