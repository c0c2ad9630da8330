/**
 * `npm run bench:sync [-- --quick] [--json] [--blocks N] [--cpu-prof DIR] [--node-args="…"]`
 *
 * Block sync against block production, in one run on this machine, both real `stratad`
 * processes on 127.0.0.1:
 * 1. produce: the validator takes N blocks of 1,400 pre-signed EIP-1559 transfers, 1,400
 *    senders each sending one per block. Its `timeout_commit` is 4 s, so each block's 1,400
 *    transfers are all admitted before the block that takes them starts; they are submitted
 *    over 8 keep-alive connections (the raw-socket generator, so the client adds little to
 *    the submission time) and the next batch goes once they are included.
 *    `validatorProduceTxPerSec` is the transfers over the validator's working time for them:
 *    per block, the submission (admission: signature recovery, nonce and balance checks) plus
 *    the time from the block's proposal (its header time) until the block is seen in RPC
 *    (execution, commit, signing, storing). The idle wait for the next tick is not counted.
 * 2. catch up: a fresh follower names the validator in persistent_peers and syncs those blocks
 *    (fetched in ranges, verified, executed through the same App code, stored). A full run
 *    does this with three fresh followers, one after another, and reports the median round
 *    (`followerCatchUpRoundsTxPerSec` lists every round): one catch-up lasts a second or two,
 *    and a single one swings with what else the machine did in it.
 *    `followerCatchUpBlocksPerSec` / `followerCatchUpTxPerSec` run from the moment its RPC
 *    answers until it has the last block with transfers, and count only the blocks (and their
 *    transfers) it applied in that time. `followerStageMs` is the follower's
 *    time per block in each stage (execute, SC commit, SS apply: mean, p50, p99), from the
 *    block stage histogram of its `/metrics` over the catch-up. `followerGcMs` is the time its
 *    main thread spent in garbage collection over the catch-up, per kind (young-generation
 *    scavenges `minor`, full collections `major`, and `incremental` marking steps; from the
 *    `nodejs_gc_duration_seconds` histogram of its `/metrics`), and `followerGcShare` that time
 *    over the catch-up's.
 * 3. lag: the validator restarts with 1 s blocks and gets a steady 1,000 transfers/s for the
 *    load window; both nodes' heights are polled every 5 ms and each block's lag is the time
 *    from the validator showing it to the follower showing it. `followerLagMsP99` is the 99th
 *    percentile of those lags (with few blocks, that is the worst one).
 * Each phase first waits for other processes to go quiet and records the CPU they used during
 * it (`foreignCpuPercent`); figures taken while other work ran are not comparable.
 * Both nodes run with `max-packet-msg-payload-size = 1024000`: a block of 1,400 transfers is
 * about 160 KB, above the 102,400 default (the setting the spec suggests for large blocks).
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadNodeKey } from '../../src/chain/keys.js';
import { Duration, loadConfig, renderConfigToml } from '../../src/config/index.js';
import { emitReport, rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from '../rpc/cpu.js';
import { sendEach } from '../rpc/load.js';
import { benchNodeArgs, initNodeHome, startNode, type NodeHome, type RunningProcess } from '../node/node-process.js';
import { medianBy } from '../node/round-stats.js';
import { RpcClient } from '../node/rpc-client.js';
import { scrapeMetrics } from '../metrics-text.js';
import { scrapeStages, stageDeltas } from '../pipeline/stage-metrics.js';
import { sendRawTransactionBodies, signTransfers } from '../node/transfers.js';

const EVM_CHAIN_ID = 713715;
const TXS_PER_BLOCK = 1_400;
const PRODUCE_BLOCK_MS = 4_000;
const LOAD_BLOCK_MS = 1_000;
const LOAD_TPS = 1_000;
const MAX_PACKET = 1_024_000;
const SUBMIT_CONNECTIONS = 8;
const TIMEOUT_MS = 300_000;
/** Each phase waits (at most QUIET_WAIT_MS) for other processes to use under this share of the machine. */
const QUIET_PERCENT = 5;
const QUIET_WAIT_MS = 20_000;

interface Size {
  blocks: number;
  /** Fresh followers that catch up, one after another. */
  catchUpRounds: number;
  loadSeconds: number;
}

/** One follower's catch-up: its process (still running) and figures. */
interface CatchUpRound {
  node: RunningProcess;
  client: RpcClient;
  blocksPerSec: number;
  txPerSec: number;
  stageMs: Record<(typeof FOLLOWER_STAGES)[number], { meanMs: number; p50Ms: number; p99Ms: number }>;
  gcMs: Record<string, number>;
  gcShare: number;
  foreignCpuPercent: number;
}

/** The follower's block stages, from its `/metrics` (it neither signs nor times its block store writes). */
const FOLLOWER_STAGES = ['execute', 'sc_commit', 'ss_apply'] as const;
const STAGE_HISTOGRAM = 'strata_block_stage_duration_seconds';
const FULL: Size = { blocks: 12, catchUpRounds: 3, loadSeconds: 20 };
const QUICK: Size = { blocks: 4, catchUpRounds: 1, loadSeconds: 6 };

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** The node's garbage-collection seconds so far per kind, from its `/metrics` (prom-client's default metrics). */
async function gcSeconds(metricsPort: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { name, labels, value } of await scrapeMetrics(metricsPort)) {
    if (name === 'nodejs_gc_duration_seconds_sum' && labels.kind !== undefined) out.set(labels.kind, value);
  }
  return out;
}

/** Rewrites config.toml of `home` with a block interval, the packet size and persistent peers. */
async function configure(home: NodeHome, blockMs: number, persistentPeers = ''): Promise<void> {
  const config = await loadConfig(home.home);
  const node = {
    ...config.node,
    consensus: { ...config.node.consensus, timeoutCommit: Duration.fromMilliseconds(blockMs) },
    p2p: { ...config.node.p2p, maxPacketMsgPayloadSize: MAX_PACKET },
  };
  writeFileSync(join(home.home, 'config', 'config.toml'), renderConfigToml(node).replace(/^persistent_peers = .*$/m, `persistent_peers = "${persistentPeers}"`));
}

/** The header time (ms) of block `height`, from the consensus RPC's /block. */
async function headerTimeMs(rpcPort: number, height: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${rpcPort}/block?height=${height}`);
  const json = (await r.json()) as { result: { block: { header: { time: string } } } };
  return Date.parse(json.result.block.header.time);
}

async function heightOf(client: RpcClient): Promise<number> {
  return Number(await client.call<string>('eth_blockNumber'));
}

/** Thrown when the validator refuses transfers of the workload: the figures would not be comparable. */
class SubmitRefusedError extends Error {
  constructor(refused: number, total: number, first: string) {
    super(`the validator refused ${refused} of ${total} transfers; first answer: ${first}`);
    this.name = 'SubmitRefusedError';
  }
}

/**
 * Submits `raws` over SUBMIT_CONNECTIONS connections with the raw-socket generator, whose own
 * cost per request is small: the submission time counts as the validator's work.
 */
async function submit(port: number, raws: readonly string[]): Promise<void> {
  const result = await sendEach({ port, bodies: sendRawTransactionBodies(raws), connections: SUBMIT_CONNECTIONS, timeoutMs: TIMEOUT_MS });
  if (result.ok !== raws.length) throw new SubmitRefusedError(raws.length - result.ok, raws.length, result.firstError || 'none within the timeout');
}

/**
 * Polls until `count` more transactions are in blocks after `from`; returns the new height,
 * the last block with transactions, the blocks that had any and when (Date.now()) it saw the last.
 */
async function waitIncluded(
  client: RpcClient,
  from: number,
  count: number,
  txsAt: Map<number, number>,
): Promise<{ height: number; lastWithTxs: number; withTxs: number; seenAtMs: number }> {
  const deadline = performance.now() + TIMEOUT_MS;
  let seen = from;
  let included = 0;
  let lastWithTxs = from;
  let withTxs = 0;
  while (performance.now() < deadline) {
    const latest = await heightOf(client);
    const seenAtMs = Date.now();
    for (let h = seen + 1; h <= latest; h++) {
      const n = Number(await client.call<string>('eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`]));
      txsAt.set(h, n);
      if (n > 0) {
        lastWithTxs = h;
        withTxs++;
      }
      included += n;
    }
    seen = latest;
    if (included >= count) return { height: latest, lastWithTxs, withTxs, seenAtMs };
    await sleep(5);
  }
  throw new Error(`only ${included} of ${count} transfers were included after ${TIMEOUT_MS} ms`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, blocks: { type: 'string' }, 'cpu-prof': { type: 'string' }, 'node-args': { type: 'string', default: '' } },
  });
  const size = { ...(values.quick ? QUICK : FULL) };
  if (values.blocks !== undefined) size.blocks = Number(values.blocks);
  if (!Number.isSafeInteger(size.blocks) || size.blocks < 1 || size.blocks > 70) throw new Error('--blocks must be an integer from 1 to 70');
  const loadNonces = Math.ceil((LOAD_TPS * size.loadSeconds) / TXS_PER_BLOCK) + 1;
  const accounts = devAccounts(TXS_PER_BLOCK);
  log(`signing ${TXS_PER_BLOCK * (size.blocks + loadNonces)} transfers…`);
  const all = signTransfers(accounts, size.blocks + loadNonces, EVM_CHAIN_ID, 'sync');
  const produceTxs = all.slice(0, TXS_PER_BLOCK * size.blocks);
  const loadTxs = all.slice(TXS_PER_BLOCK * size.blocks, TXS_PER_BLOCK * size.blocks + LOAD_TPS * size.loadSeconds);

  // `--node-args` goes to every node, validator and followers alike.
  const nodeArgs = benchNodeArgs(values['node-args'], undefined);
  const homes: NodeHome[] = [];
  const processes: RunningProcess[] = [];
  try {
    const validatorHome = await initNodeHome({ devAccounts: accounts.length, blockMs: PRODUCE_BLOCK_MS, mempoolSize: 4 * TXS_PER_BLOCK, evmChainId: EVM_CHAIN_ID });
    homes.push(validatorHome);
    await configure(validatorHome, PRODUCE_BLOCK_MS);
    let validator = await startNode(validatorHome, nodeArgs);
    processes.push(validator);
    const vClient = new RpcClient(validatorHome.httpPort, SUBMIT_CONNECTIONS);

    // 1. The validator produces N blocks of 1,400 transfers.
    await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, [validator.pid]);
    let cpu = cpuSnapshot([validator.pid]);
    log(`validator: producing ${size.blocks} blocks of ${TXS_PER_BLOCK} transfers`);
    const validatorRpc = (await loadConfig(validatorHome.home)).node.rpc.laddr.port;
    let height = await heightOf(vClient);
    let lastWithTxs = 0;
    let blocksWithTxs = 0;
    let workMs = 0;
    /** Transactions per produced block, by height. */
    const txsAt = new Map<number, number>();
    for (let b = 0; b < size.blocks; b++) {
      const batch = produceTxs.slice(b * TXS_PER_BLOCK, (b + 1) * TXS_PER_BLOCK);
      const submitStart = performance.now();
      await submit(validatorHome.httpPort, batch);
      workMs += performance.now() - submitStart;
      const included = await waitIncluded(vClient, height, batch.length, txsAt);
      // The block's header time is when its proposal was made: from then until it is served is the build.
      workMs += Math.max(0, included.seenAtMs - (await headerTimeMs(validatorRpc, included.lastWithTxs)));
      ({ height, lastWithTxs } = included);
      blocksWithTxs += included.withTxs;
    }
    const validatorProduceTxPerSec = produceTxs.length / (workMs / 1000);
    const foreignProduce = foreignCpuPercent(cpu, cpuSnapshot([validator.pid]));
    log(`validator: ${produceTxs.length} transfers in ${blocksWithTxs} blocks, ${(workMs / 1000).toFixed(2)} s of work (last block with transfers ${lastWithTxs})`);

    // 2. Fresh followers catch up, one after another; the figures are the median round's.
    const validatorId = loadNodeKey(join(validatorHome.home, 'config', 'node_key.json')).id;
    const validatorP2p = (await loadConfig(validatorHome.home)).node.p2p.laddr.port;
    // `--cpu-prof DIR` profiles each follower.
    const followerArgs = benchNodeArgs(values['node-args'], values['cpu-prof']);
    const catchUp = async (): Promise<CatchUpRound> => {
      const home = await initNodeHome({ devAccounts: accounts.length, blockMs: LOAD_BLOCK_MS, mempoolSize: 4 * TXS_PER_BLOCK, evmChainId: EVM_CHAIN_ID });
      homes.push(home);
      copyFileSync(join(validatorHome.home, 'config', 'genesis.json'), join(home.home, 'config', 'genesis.json'));
      await configure(home, LOAD_BLOCK_MS, `${validatorId}@127.0.0.1:${validatorP2p}`);
      await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, [validator.pid]);
      // Its RPC listens before its peer layer starts: asked every few milliseconds, it answers
      // (and the clock starts) before the first block arrives.
      const node = await startNode(home, followerArgs, 5);
      processes.push(node);
      const before = cpuSnapshot([validator.pid, node.pid]);
      const client = new RpcClient(home.httpPort, 1);
      const metricsPort = (await loadConfig(home.home)).node.instrumentation.prometheusListenAddr.port;
      const stagesBefore = await scrapeStages(metricsPort, [STAGE_HISTOGRAM]);
      const gcBefore = await gcSeconds(metricsPort);
      const catchStart = performance.now();
      const startHeight = await heightOf(client);
      while ((await heightOf(client)) < lastWithTxs) {
        if (performance.now() - catchStart > TIMEOUT_MS) throw new Error(`the follower did not reach ${lastWithTxs}: ${node.output()}`);
        await sleep(5);
      }
      const seconds = (performance.now() - catchStart) / 1000;
      const stageTimes = stageDeltas(stagesBefore, await scrapeStages(metricsPort, [STAGE_HISTOGRAM]), STAGE_HISTOGRAM);
      const gcAfter = await gcSeconds(metricsPort);
      const gcMs = Object.fromEntries([...gcAfter].map(([kind, s]) => [kind, (s - (gcBefore.get(kind) ?? 0)) * 1000]));
      const stageMs = (stage: (typeof FOLLOWER_STAGES)[number]): { meanMs: number; p50Ms: number; p99Ms: number } => {
        const d = stageTimes.get(stage);
        return { meanMs: d?.meanMs ?? Number.NaN, p50Ms: d?.p50Ms ?? Number.NaN, p99Ms: d?.p99Ms ?? Number.NaN };
      };
      const blocks = lastWithTxs - startHeight;
      // The follower syncs from its first moments, so blocks it applied before its RPC answered
      // (the clock's start) are not counted.
      let txs = 0;
      for (let h = startHeight + 1; h <= lastWithTxs; h++) txs += txsAt.get(h) ?? 0;
      log(`follower: ${blocks} blocks (${txs} transfers) in ${seconds.toFixed(2)} s`);
      return {
        node,
        client,
        blocksPerSec: blocks / seconds,
        txPerSec: txs / seconds,
        stageMs: { execute: stageMs('execute'), sc_commit: stageMs('sc_commit'), ss_apply: stageMs('ss_apply') },
        gcMs,
        gcShare: Object.values(gcMs).reduce((sum, ms) => sum + ms, 0) / 1000 / seconds,
        foreignCpuPercent: foreignCpuPercent(before, cpuSnapshot([validator.pid, node.pid])),
      };
    };
    const rounds: CatchUpRound[] = [];
    for (let r = 0; r < size.catchUpRounds; r++) {
      // Every follower but the last stops before the next starts; the last one follows on in the lag phase.
      if (rounds.length > 0) {
        const previous = rounds[rounds.length - 1]!;
        previous.client.close();
        await previous.node.stop();
      }
      rounds.push(await catchUp());
    }
    const { node: follower, client: fClient } = rounds[rounds.length - 1]!;
    const median = medianBy(rounds, (round) => round.txPerSec)!;
    const followerCatchUpTxPerSec = median.txPerSec;
    const followerCatchUpBlocksPerSec = median.blocksPerSec;
    const followerStageMs = median.stageMs;
    const followerGcMs = median.gcMs;
    const followerGcShare = median.gcShare;
    // The busiest round's: any foreign load in any round makes the median suspect.
    const foreignCatchUp = Math.max(...rounds.map((round) => round.foreignCpuPercent));

    // 3. Lag under a steady 1,000 tx/s with 1 s blocks.
    await validator.stop();
    await configure(validatorHome, LOAD_BLOCK_MS);
    validator = await startNode(validatorHome, nodeArgs);
    processes.push(validator);
    const vPoll = new RpcClient(validatorHome.httpPort, 1);
    while ((await heightOf(fClient)) < (await heightOf(vPoll))) await sleep(20);
    await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, [validator.pid, follower.pid]);
    cpu = cpuSnapshot([validator.pid, follower.pid]);
    log(`lag: ${LOAD_TPS} tx/s for ${size.loadSeconds} s with ${LOAD_BLOCK_MS} ms blocks`);
    const seenV = new Map<number, number>();
    const seenF = new Map<number, number>();
    let polling = true;
    const poll = async (client: RpcClient, seen: Map<number, number>): Promise<void> => {
      let last = await heightOf(client);
      while (polling) {
        const h = await heightOf(client);
        const now = performance.now();
        for (let k = last + 1; k <= h; k++) seen.set(k, now);
        last = h;
        await sleep(5);
      }
    };
    const pollers = [poll(vPoll, seenV), poll(fClient, seenF)];
    const loadStart = performance.now();
    const perTick = LOAD_TPS / 100;
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < loadTxs.length; i += perTick) {
      const due = loadStart + (i / LOAD_TPS) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      for (const raw of loadTxs.slice(i, i + perTick)) sends.push(vClient.call('eth_sendRawTransaction', [raw]));
    }
    await Promise.all(sends);
    const loadEnd = performance.now();
    const loadTopHeight = await heightOf(vPoll);
    const deadline = performance.now() + 30_000;
    while ((await heightOf(fClient)) < loadTopHeight + 2 && performance.now() < deadline) await sleep(20);
    polling = false;
    await Promise.all(pollers);
    const lags: number[] = [];
    for (const [h, at] of seenV) {
      const f = seenF.get(h);
      if (f !== undefined && at >= loadStart && at <= loadEnd + LOAD_BLOCK_MS) lags.push(Math.max(0, f - at));
    }
    const followerLagMsP99 = percentile(lags, 99);
    const foreignLag = foreignCpuPercent(cpu, cpuSnapshot([validator.pid, follower.pid]));
    const achievedTps = loadTxs.length / ((loadEnd - loadStart) / 1000);

    const output = {
      blocks: size.blocks,
      blocksWithTransfers: blocksWithTxs,
      txsPerBlock: TXS_PER_BLOCK,
      followerCatchUpBlocksPerSec,
      followerCatchUpTxPerSec,
      followerCatchUpRoundsTxPerSec: rounds.map((round) => round.txPerSec),
      validatorProduceTxPerSec,
      followerLagMsP99,
      lagSamples: lags.length,
      lagMaxMs: lags.length ? Math.max(...lags) : Number.NaN,
      lagMedianMs: percentile(lags, 50),
      loadTxPerSec: achievedTps,
      blockIntervalMs: LOAD_BLOCK_MS,
      catchUpOverProduce: followerCatchUpTxPerSec / validatorProduceTxPerSec,
      followerStageMs,
      followerGcMs,
      followerGcShare,
      foreignCpuPercent: { produce: foreignProduce, catchUp: foreignCatchUp, lag: foreignLag },
      nodeArgs,
    };
    const text = table([
      ['figure', 'value'],
      ['validator: produce (tx/s)', rate(validatorProduceTxPerSec)],
      [`follower: catch-up (tx/s), median of ${rounds.length}`, rate(followerCatchUpTxPerSec)],
      ['follower: catch-up rounds (tx/s)', rounds.map((round) => rate(round.txPerSec)).join(' / ')],
      ['follower: catch-up (blocks/s)', followerCatchUpBlocksPerSec.toFixed(1)],
      ['catch-up / produce', `${output.catchUpOverProduce.toFixed(2)}x`],
      ['follower ms per block: execute / SC commit / SS apply', FOLLOWER_STAGES.map((stage) => followerStageMs[stage].meanMs.toFixed(1)).join(' / ')],
      ['follower GC over the catch-up (% of its time)', (100 * followerGcShare).toFixed(1)],
      [`follower lag p99 at ${rate(achievedTps)} tx/s (ms)`, followerLagMsP99.toFixed(0)],
      ['follower lag median / max (ms)', `${output.lagMedianMs.toFixed(0)} / ${output.lagMaxMs.toFixed(0)}`],
      ['lag samples (blocks)', String(lags.length)],
      ['foreign CPU produce / catch-up / lag (%)', [foreignProduce, foreignCatchUp, foreignLag].map((p) => p.toFixed(1)).join(' / ')],
    ]);
    vClient.close();
    vPoll.close();
    fClient.close();
    emitReport(text, output, values.json);
  } finally {
    for (const p of processes.reverse()) await p.stop();
    for (const home of homes) home.remove();
  }
}

await main();
