/**
 * `npm run bench:node [-- --quick] [--json] [--rounds N] [--suite all|transfers|reads|indexer] [--cpu-prof-dir DIR]`
 *
 * The node against Anvil in one run, on the same machine, with the same funded accounts, the
 * same EVM chain id (so one pre-signed workload serves both), a 30M block gas limit and 1 s
 * blocks on both: the node's `timeout_commit` is 1 s and Anvil mines on a 1 s interval
 * (`--block-time 1`). Anvil's default instant mining is not used: it mines one block per
 * transaction, and when we measured it a burst of 5,000 transfers stopped its mining for good
 * after a few hundred blocks.
 * A 30M-gas block holds at most 1,428 transfers, so 1,428 tx/s is the ceiling of both; the
 * node's interval is 1 s plus the time it takes to build the block, Anvil's is 1 s flat.
 *
 * Figures:
 * - transfers: pre-signed EIP-1559 transfers (each to a fresh address) submitted with
 *   eth_sendRawTransaction over 64 keep-alive connections (raw-socket generator, as the reads),
 *   from the first submission until the last is seen in a block; the submission rate is the
 *   server's saturation figure. A second workload per round is submitted over 8 connections:
 *   there the rate is bounded by each request's latency, tails included (`submitFewTps`).
 *   Before the first round both servers get the same untimed warm-up: WARMUP_PER_SENDER
 *   transfers from each of `senders` senders of their own, submitted and included as the
 *   timed ones are (the read phases warm up for 1 s each), so a round measures the node's
 *   compiled admission path rather than its first seconds;
 * - reads: `eth_getBalance` and ERC-20 `balanceOf` via `eth_call` at 64 keep-alive
 *   connections (raw-socket load generator, 1 s warm-up), requests/s and p99. `eth_call` runs
 *   twice: the same `balanceOf(holder)` every time (the issue's figure; the node answers a
 *   repeated call at a height from its call cache), and `balanceOf` of a different address
 *   every request, which measures EVM execution itself.
 * - scaling (with reads, after everything else): the node restarted with 1, 2 and 4 execution
 *   workers, `eth_call` on distinct holders and the callTracer over 64 Token transfers at
 *   each (see ./scaling.ts); `…ByWorkers` fields keyed by the worker count, and per worker
 *   (divided by min(workers, cores)), which predicts a machine with more cores.
 * - indexer (once, after the rounds): `eth_getBlockReceipts` of the three fullest transfer
 *   blocks (near 1,400 transfers each on a quiet machine; their sizes are reported) and `eth_getLogs` of a Token over 101 distinct 1,000-block
 *   windows sliding along a 2,000-block history in which every block holds the same Token
 *   transfers (first queries and repeats both count), at 8 connections; the log history is built on a
 *   second node (25 ms blocks) and a second Anvil (mined per batch), see ./indexer.ts.
 * Node and Anvil run alternately within each round (the order flips every round); each round
 * uses its own senders. The `node*`/`anvil*` fields are the median round; `stats` gives per
 * figure the mean of the rounds with min, max and standard deviation (`meanRatio` is node mean
 * over Anvil mean), and `cpu` the CPU each side used during the runs of a figure (the node,
 * Anvil and the load generator, in percent of one core, mean over the rounds). The load generator shares the
 * two cores with the server it drives, so read figures are co-located figures; the node/Anvil
 * ratios, taken in the same run, are what compare.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { devAccounts, type DevAccount } from '../../src/chain/genesis-file.js';
import { loadConfig } from '../../src/config/index.js';
import { emitReport, rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from '../rpc/cpu.js';
import { costPerRequest, meanThreadCost, threadCostText, threadTotals, type ThreadCostPerRequest } from './thread-cost.js';
import type { LoadResult } from '../rpc/load.js';
import { launchAnvil, startAnvil } from './anvil-process.js';
import { meanSideCpu, medianBy, roundStats, startSideCpu, type SideCpu } from './round-stats.js';
import { benchNodeArgs, initNodeHome, setBlockInterval, startNode, type NodeHome, type RunningProcess } from './node-process.js';
import { blockReceiptsBodies, buildLogHistory, fullestBlocks, getLogsBody, LOG_RANGE_BLOCKS, logWindows, mirrorLogHistory, runIndexerReads } from './indexer.js';
import { deployToken, readBodies, runReads, signTokenDeploy } from './reads.js';
import { RpcClient } from './rpc-client.js';
import { callTracerBodies, measureScaling, submitTokenTransfers, type ScalingRun } from './scaling.js';
import { runTransfers, signTransfers, type TransferRun } from './transfers.js';

/** Workload size of a full or a quick run. */
interface Size {
  senders: number;
  perSender: number;
  rounds: number;
  readSeconds: number;
}

const FULL: Size = { senders: 100, perSender: 50, rounds: 3, readSeconds: 10 };
const QUICK: Size = { senders: 100, perSender: 20, rounds: 1, readSeconds: 3 };
const EVM_CHAIN_ID = 713715;
const BLOCK_MS = 1000;
const GAS_LIMIT = 30_000_000;
/** Connections of the saturating submission run: as many as the reads use. */
const SUBMIT_CONNECTIONS = 64;
/** Connections of the latency-bound submission run. */
const FEW_SUBMIT_CONNECTIONS = 8;
const READ_CONNECTIONS = 64;
/** Indexer requests are large (a 1,400-receipt block is about a megabyte): fewer connections. */
const INDEXER_CONNECTIONS = 8;
/** eth_getBlockReceipts cycles over this many of the fullest blocks (30M gas holds 1,428 transfers). */
const RECEIPT_BLOCKS = 3;
/** The log-history node's block interval. */
const HISTORY_BLOCK_MS = 25;
/** Token transfers per block of the log history, and the accounts that send them. */
const HISTORY_PER_BLOCK = 5;
const HISTORY_TIMEOUT_MS = 600_000;
const INCLUSION_TIMEOUT_MS = 180_000;
/** Transfers per sender of the untimed warm-up both servers get before the first round. */
const WARMUP_PER_SENDER = 5;
/** Runs wait (at most QUIET_WAIT_MS) for other processes to use under this share of the machine. */
const QUIET_PERCENT = 5;
const QUIET_WAIT_MS = 20_000;
/** 10,000 ether, what `stratad init` gives each development account. */
const DEV_BALANCE_HEX = `0x${(10_000n * 10n ** 18n).toString(16)}`;

type Target = 'node' | 'anvil';
type Suite = 'all' | 'transfers' | 'reads' | 'indexer';

/** A measured run with the foreign CPU it saw and the CPU each side used. */
type Measured<T> = T & { foreignCpuPercent: number; cpu: SideCpu };

/** Everything measured for one target. */
interface TargetRuns {
  transfers: Array<Measured<TransferRun>>;
  /** The same kind of run over FEW_SUBMIT_CONNECTIONS connections. */
  transfersFew: Array<Measured<TransferRun>>;
  getBalance: Array<Measured<LoadResult>>;
  ethCall: Array<Measured<LoadResult>>;
  ethCallDistinct: Array<Measured<LoadResult>>;
  getLogs: Array<Measured<LoadResult>>;
  blockReceipts: Array<Measured<LoadResult>>;
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/**
 * Waits for a quiet machine, runs `work` and records the foreign CPU during it and the CPU of
 * each side (`sides`: the node and the Anvil of the pair being measured).
 */
async function gated<T extends object>(pids: number[], sides: { node: number; anvil: number }, work: () => Promise<T>): Promise<Measured<T>> {
  await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, pids);
  const before = cpuSnapshot(pids);
  const meter = startSideCpu(sides.node, sides.anvil);
  const result = await work();
  const cpu = meter.stop();
  return { ...result, foreignCpuPercent: foreignCpuPercent(before, cpuSnapshot(pids)), cpu };
}

/** Gives Anvil the development accounts' genesis balances. */
async function fundAnvil(port: number, accounts: readonly DevAccount[]): Promise<void> {
  const client = new RpcClient(port, 8);
  try {
    await Promise.all(accounts.map((a) => client.call('anvil_setBalance', [a.address, DEV_BALANCE_HEX])));
  } finally {
    client.close();
  }
}

function ratio(a: number | undefined, b: number | undefined): number | null {
  return a !== undefined && b !== undefined && b > 0 ? a / b : null;
}

const fmtRatio = (r: number | null) => (r === null ? '' : `${r.toFixed(2)}×`);
const fmtMs = (ms: number | undefined) => (ms === undefined ? '' : ms.toFixed(2));
const fmtRate = (n: number | undefined) => (n === undefined ? '' : rate(n));

/**
 * The pair the log history is built on: a node with HISTORY_BLOCK_MS blocks and an Anvil that
 * mines only when told (automatic mining is switched off after the Token is deployed on both).
 */
async function startHistoryPair(
  accounts: readonly DevAccount[],
  deployer: DevAccount,
  deploy: { raw: string; address: string },
): Promise<{ home: NodeHome; node: RunningProcess; anvil: RunningProcess }> {
  const home = await initNodeHome({ devAccounts: accounts.length, blockMs: HISTORY_BLOCK_MS, mempoolSize: 10_000, evmChainId: EVM_CHAIN_ID });
  const node = await startNode(home);
  const anvil = await launchAnvil(['--chain-id', String(EVM_CHAIN_ID), '--gas-limit', String(GAS_LIMIT)]);
  await fundAnvil(anvil.port, accounts.slice(0, 1 + HISTORY_PER_BLOCK));
  await Promise.all([deployToken(node.port, deploy, deployer.address), deployToken(anvil.port, deploy, deployer.address)]);
  const client = new RpcClient(anvil.port, 1);
  try {
    await client.call('evm_setAutomine', [false]);
  } finally {
    client.close();
  }
  return { home, node, anvil };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      suite: { type: 'string', default: 'all' },
      'cpu-prof-dir': { type: 'string' },
    },
  });
  const size: Size = { ...(values.quick ? QUICK : FULL) };
  if (values.rounds !== undefined) size.rounds = Number(values.rounds);
  if (!Number.isSafeInteger(size.rounds) || size.rounds < 1) throw new RangeError(`--rounds must be a positive integer, got ${values.rounds}`);
  const suite = values.suite as Suite;
  if (!['all', 'transfers', 'reads', 'indexer'].includes(suite)) throw new RangeError(`--suite must be all, transfers, reads or indexer, got ${values.suite}`);
  const profileDir = values['cpu-prof-dir'] ? resolve(values['cpu-prof-dir']) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  // Account 0 deploys the Token; round r sends from accounts 1 + r·senders onward, and its
  // few-connection run from 1 + (rounds + r)·senders onward; the warm-up from the senders after those.
  const accounts = devAccounts(1 + 2 * size.senders * size.rounds + size.senders);
  const deployer = accounts[0]!;
  log(`bench:node ${values.quick ? 'quick' : 'full'} · ${size.rounds} round(s) · ${rate(size.senders * size.perSender)} transfers from ${size.senders} senders · reads ${size.readSeconds} s at ${READ_CONNECTIONS} connections`);

  const started: RunningProcess[] = [];
  const stopAll = () => Promise.all(started.map((p) => p.stop()));
  const onSignal = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let home: NodeHome | undefined;
  try {
    home = await initNodeHome({ devAccounts: accounts.length, blockMs: BLOCK_MS, mempoolSize: 4 * size.senders * size.perSender, evmChainId: EVM_CHAIN_ID });
    const nodeArgs = benchNodeArgs('', profileDir);
    const node = await startNode(home, nodeArgs);
    started.push(node);
    const anvil = await startAnvil({ blockSeconds: BLOCK_MS / 1000, chainId: EVM_CHAIN_ID, gasLimit: GAS_LIMIT });
    started.push(anvil);
    await fundAnvil(anvil.port, accounts);
    log(`· node pid ${node.pid} on :${node.port}, anvil pid ${anvil.pid} on :${anvil.port}`);

    const deploy = signTokenDeploy(deployer.privateKey, deployer.address, 0n, EVM_CHAIN_ID);
    await Promise.all([deployToken(node.port, deploy, deployer.address), deployToken(anvil.port, deploy, deployer.address)]);
    const bodies = readBodies(deployer.address, deploy.address);
    log(`· Token deployed at ${deploy.address} on both`);

    let signMs = performance.now();
    const workloadOf = (first: number, label: string) => signTransfers(accounts.slice(first, first + size.senders), size.perSender, EVM_CHAIN_ID, label);
    const workloads = Array.from({ length: size.rounds }, (_, r) => workloadOf(1 + r * size.senders, `round-${r}`));
    const fewWorkloads = Array.from({ length: size.rounds }, (_, r) => workloadOf(1 + (size.rounds + r) * size.senders, `round-${r}-few`));
    signMs = performance.now() - signMs;
    log(`· signed ${rate(2 * workloads.length * size.senders * size.perSender)} transfers in ${(signMs / 1000).toFixed(2)} s`);

    const targets: Record<Target, RunningProcess> = { node, anvil };
    const runs: Record<Target, TargetRuns> = {
      node: { transfers: [], transfersFew: [], getBalance: [], ethCall: [], ethCallDistinct: [], getLogs: [], blockReceipts: [] },
      anvil: { transfers: [], transfersFew: [], getBalance: [], ethCall: [], ethCallDistinct: [], getLogs: [], blockReceipts: [] },
    };
    const metricsPort = (await loadConfig(home.home)).node.instrumentation.prometheusListenAddr.port;
    /** Per round, what an eth_call on a distinct holder cost the node's threads. */
    const callThreadCosts: ThreadCostPerRequest[] = [];
    const pids = [node.pid, anvil.pid];
    const sides = { node: node.pid, anvil: anvil.pid };
    if (suite === 'all' || suite === 'transfers') {
      const warmup = signTransfers(accounts.slice(1 + 2 * size.senders * size.rounds), WARMUP_PER_SENDER, EVM_CHAIN_ID, 'warm-up');
      for (const target of ['node', 'anvil'] as const) {
        const run = await runTransfers(targets[target].port, warmup, SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS);
        log(`warm-up ${target}: ${rate(warmup.length)} transfers, submit ${rate(run.submitTps)} tx/s (untimed)`);
      }
    }
    for (let r = 0; r < size.rounds; r++) {
      const order: Target[] = r % 2 === 0 ? ['node', 'anvil'] : ['anvil', 'node'];
      if (suite === 'all' || suite === 'transfers') {
        for (const target of order) {
          const run = await gated(pids, sides, () => runTransfers(targets[target].port, workloads[r]!, SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS));
          runs[target].transfers.push(run);
          log(`round ${r + 1}/${size.rounds} ${target} transfers: ${rate(run.tps)} tx/s e2e (${run.seconds.toFixed(2)} s, ${run.blocks} blocks), submit ${rate(run.submitTps)} tx/s, ${run.rejected} rejected, foreign CPU ${run.foreignCpuPercent.toFixed(1)}%`);
          const few = await gated(pids, sides, () => runTransfers(targets[target].port, fewWorkloads[r]!, FEW_SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS));
          runs[target].transfersFew.push(few);
          log(`round ${r + 1}/${size.rounds} ${target} transfers over ${FEW_SUBMIT_CONNECTIONS} connections: submit ${rate(few.submitTps)} tx/s (p50 ${few.submitP50Ms.toFixed(2)} ms, p99 ${few.submitP99Ms.toFixed(2)} ms), ${few.rejected} rejected`);
        }
      }
      if (suite === 'all' || suite === 'reads') {
        for (const method of ['getBalance', 'ethCall', 'ethCallDistinct'] as const) {
          for (const target of order) {
            const threadsBefore = target === 'node' && method === 'ethCallDistinct' ? await threadTotals(metricsPort) : undefined;
            const run = await gated(pids, sides, () => runReads(targets[target].port, bodies[method], READ_CONNECTIONS, size.readSeconds));
            runs[target][method].push(run);
            log(`round ${r + 1}/${size.rounds} ${target} ${method}: ${rate(run.requestsPerSec)} req/s, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, ${run.errors} errors, foreign CPU ${run.foreignCpuPercent.toFixed(1)}%`);
            if (threadsBefore !== undefined) {
              const cost = costPerRequest(threadsBefore, await threadTotals(metricsPort), run.requests);
              callThreadCosts.push(cost);
              log(`round ${r + 1}/${size.rounds} node ethCallDistinct per call: ${threadCostText(cost)}`);
            }
          }
        }
      }
    }

    const receiptBlockTxs: Record<Target, number[]> = { node: [], anvil: [] };
    let logsInRange = 0;
    if (suite === 'all' || suite === 'indexer') {
      if (suite === 'indexer') {
        // Full blocks to read receipts of: one unmeasured transfer round.
        await Promise.all([runTransfers(node.port, workloads[0]!, SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS), runTransfers(anvil.port, workloads[0]!, SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS)]);
      }
      for (const target of ['node', 'anvil'] as const) {
        const blocks = await fullestBlocks(targets[target].port, RECEIPT_BLOCKS);
        if (blocks.length === 0) throw new Error(`${target} has no transfer block to read receipts of`);
        receiptBlockTxs[target] = blocks.map((b) => b.txs);
        const run = await gated(pids, sides, () => runIndexerReads(targets[target].port, blockReceiptsBodies(blocks.map((b) => b.height)), INDEXER_CONNECTIONS, size.readSeconds));
        runs[target].blockReceipts.push(run);
        log(`${target} eth_getBlockReceipts (blocks of ${blocks.map((b) => b.txs).join(', ')} transfers): ${rate(run.requestsPerSec)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, ${run.errors} errors`);
      }
      const history = await startHistoryPair(accounts, deployer, deploy);
      started.push(history.node, history.anvil);
      try {
        const senders = accounts.slice(1, 1 + HISTORY_PER_BLOCK);
        const nodeHistory = await buildLogHistory(history.node.port, senders, deploy.address, HISTORY_PER_BLOCK, EVM_CHAIN_ID, HISTORY_TIMEOUT_MS);
        const anvilRange = await mirrorLogHistory(history.anvil.port, senders, deploy.address, nodeHistory.txsPerBlock, EVM_CHAIN_ID);
        const nodeRange = { fromBlock: nodeHistory.fromBlock, toBlock: nodeHistory.toBlock };
        const windows = logWindows(nodeRange);
        // Mean Transfer logs one window answers (blocks hold one log per transfer).
        logsInRange = Math.round(windows.reduce((sum, w) => sum + nodeHistory.txsPerBlock.slice(w.fromBlock - nodeRange.fromBlock, w.toBlock - nodeRange.fromBlock + 1).reduce((a, n) => a + n, 0), 0) / windows.length);
        // Measured at the run's block interval, not while the node builds a block every 25 ms.
        await history.node.stop();
        await setBlockInterval(history.home, BLOCK_MS);
        history.node = await startNode(history.home, nodeArgs);
        started.push(history.node);
        log(`· log history: ${logsInRange} Transfer logs per ${LOG_RANGE_BLOCKS}-block window, node blocks ${nodeRange.fromBlock}…${nodeRange.toBlock}, anvil blocks ${anvilRange.fromBlock}…${anvilRange.toBlock}`);
        const ranges = { node: nodeRange, anvil: anvilRange };
        const historyTargets = { node: history.node, anvil: history.anvil };
        for (const target of ['node', 'anvil'] as const) {
          const bodies = logWindows(ranges[target]).map((window) => getLogsBody(deploy.address, window));
          const run = await gated([history.node.pid, history.anvil.pid, ...pids], { node: history.node.pid, anvil: history.anvil.pid }, () => runIndexerReads(historyTargets[target].port, bodies, INDEXER_CONNECTIONS, size.readSeconds));
          runs[target].getLogs.push(run);
          log(`${target} eth_getLogs (${bodies.length} distinct ${LOG_RANGE_BLOCKS}-block windows): ${rate(run.requestsPerSec)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, ${run.errors} errors`);
        }
      } finally {
        await Promise.all([history.node.stop(), history.anvil.stop()]);
        history.home.remove();
      }
    }

    let scaling: ScalingRun | undefined;
    if (suite === 'all' || suite === 'reads') {
      const traced = await submitTokenTransfers(node.port, deployer, deploy.address, 1n, EVM_CHAIN_ID);
      log(`· ${traced.length} Token transfers mined for the callTracer figure; restarting the node with 1, 2 and 4 execution workers`);
      await node.stop();
      scaling = await measureScaling({
        home,
        nodeArgs,
        callBodies: bodies.ethCallDistinct,
        traceBodies: callTracerBodies(traced),
        connections: READ_CONNECTIONS,
        seconds: size.readSeconds,
        gate: (scalingPids, work) => gated([...scalingPids, anvil.pid], { node: scalingPids[0]!, anvil: anvil.pid }, work),
        log,
        track: (p) => started.push(p),
      });
    }

    const pick = (t: Target) => ({
      transfers: medianBy(runs[t].transfers, (x) => x.tps),
      // Submission is a figure of its own: the median of the rounds' submission rates, not
      // the submission of the round whose end-to-end rate is the median.
      submission: medianBy(runs[t].transfers, (x) => x.submitTps),
      submissionFew: medianBy(runs[t].transfersFew, (x) => x.submitTps),
      getBalance: medianBy(runs[t].getBalance, (x) => x.requestsPerSec),
      ethCall: medianBy(runs[t].ethCall, (x) => x.requestsPerSec),
      ethCallDistinct: medianBy(runs[t].ethCallDistinct, (x) => x.requestsPerSec),
      getLogs: medianBy(runs[t].getLogs, (x) => x.requestsPerSec),
      blockReceipts: medianBy(runs[t].blockReceipts, (x) => x.requestsPerSec),
    });
    const n = pick('node');
    const a = pick('anvil');
    const all = [...Object.values(runs.node), ...Object.values(runs.anvil)].flat();
    type Run = Measured<TransferRun> | Measured<LoadResult>;
    const figureOf = <K extends keyof TargetRuns>(key: K, value: (run: TargetRuns[K][number]) => number) => {
      const nodeStats = roundStats(runs.node[key].map((x) => value(x as TargetRuns[K][number])));
      const anvilStats = roundStats(runs.anvil[key].map((x) => value(x as TargetRuns[K][number])));
      return { node: nodeStats, anvil: anvilStats, meanRatio: ratio(nodeStats?.mean, anvilStats?.mean) };
    };
    const stats = {
      transferTps: figureOf('transfers', (x) => x.tps),
      submitTps: figureOf('transfers', (x) => x.submitTps),
      submitFewTps: figureOf('transfersFew', (x) => x.submitTps),
      submitFewP99Ms: figureOf('transfersFew', (x) => x.submitP99Ms),
      getBalanceRps: figureOf('getBalance', (x) => x.requestsPerSec),
      getBalanceP99Ms: figureOf('getBalance', (x) => x.p99Ms),
      ethCallRps: figureOf('ethCall', (x) => x.requestsPerSec),
      ethCallP99Ms: figureOf('ethCall', (x) => x.p99Ms),
      ethCallDistinctRps: figureOf('ethCallDistinct', (x) => x.requestsPerSec),
      ethCallDistinctP99Ms: figureOf('ethCallDistinct', (x) => x.p99Ms),
      getLogsRps: figureOf('getLogs', (x) => x.requestsPerSec),
      blockReceiptsRps: figureOf('blockReceipts', (x) => x.requestsPerSec),
    };
    const cpuOf = (key: keyof TargetRuns) => ({
      node: meanSideCpu((runs.node[key] as Run[]).map((x) => x.cpu)),
      anvil: meanSideCpu((runs.anvil[key] as Run[]).map((x) => x.cpu)),
    });
    const cpu = {
      transfers: cpuOf('transfers'),
      getBalance: cpuOf('getBalance'),
      ethCall: cpuOf('ethCall'),
      ethCallDistinct: cpuOf('ethCallDistinct'),
      getLogs: cpuOf('getLogs'),
      blockReceipts: cpuOf('blockReceipts'),
    };
    const output = {
      quick: values.quick,
      rounds: size.rounds,
      blockMs: BLOCK_MS,
      blockGasLimit: GAS_LIMIT,
      transfers: size.senders * size.perSender,
      senders: size.senders,
      submitConnections: SUBMIT_CONNECTIONS,
      fewSubmitConnections: FEW_SUBMIT_CONNECTIONS,
      readConnections: READ_CONNECTIONS,
      readSeconds: size.readSeconds,
      nodeTransferTps: n.transfers?.tps ?? null,
      anvilTransferTps: a.transfers?.tps ?? null,
      transferTpsRatio: ratio(n.transfers?.tps, a.transfers?.tps),
      nodeSubmitTps: n.submission?.submitTps ?? null,
      anvilSubmitTps: a.submission?.submitTps ?? null,
      submitTpsRatio: ratio(n.submission?.submitTps, a.submission?.submitTps),
      nodeSubmitFewTps: n.submissionFew?.submitTps ?? null,
      anvilSubmitFewTps: a.submissionFew?.submitTps ?? null,
      submitFewTpsRatio: ratio(n.submissionFew?.submitTps, a.submissionFew?.submitTps),
      nodeSubmitFewP99Ms: n.submissionFew?.submitP99Ms ?? null,
      anvilSubmitFewP99Ms: a.submissionFew?.submitP99Ms ?? null,
      nodeTransferBlocks: n.transfers?.blocks ?? null,
      anvilTransferBlocks: a.transfers?.blocks ?? null,
      nodeGetBalanceRps: n.getBalance?.requestsPerSec ?? null,
      anvilGetBalanceRps: a.getBalance?.requestsPerSec ?? null,
      getBalanceRpsRatio: ratio(n.getBalance?.requestsPerSec, a.getBalance?.requestsPerSec),
      nodeGetBalanceP99Ms: n.getBalance?.p99Ms ?? null,
      anvilGetBalanceP99Ms: a.getBalance?.p99Ms ?? null,
      nodeEthCallRps: n.ethCall?.requestsPerSec ?? null,
      anvilEthCallRps: a.ethCall?.requestsPerSec ?? null,
      ethCallRpsRatio: ratio(n.ethCall?.requestsPerSec, a.ethCall?.requestsPerSec),
      nodeEthCallP99Ms: n.ethCall?.p99Ms ?? null,
      anvilEthCallP99Ms: a.ethCall?.p99Ms ?? null,
      nodeEthCallDistinctRps: n.ethCallDistinct?.requestsPerSec ?? null,
      anvilEthCallDistinctRps: a.ethCallDistinct?.requestsPerSec ?? null,
      ethCallDistinctRpsRatio: ratio(n.ethCallDistinct?.requestsPerSec, a.ethCallDistinct?.requestsPerSec),
      nodeEthCallDistinctP99Ms: n.ethCallDistinct?.p99Ms ?? null,
      nodeEthCallDistinctThreadUs: meanThreadCost(callThreadCosts),
      anvilEthCallDistinctP99Ms: a.ethCallDistinct?.p99Ms ?? null,
      nodeGetLogsRps: n.getLogs?.requestsPerSec ?? null,
      anvilGetLogsRps: a.getLogs?.requestsPerSec ?? null,
      getLogsRpsRatio: ratio(n.getLogs?.requestsPerSec, a.getLogs?.requestsPerSec),
      nodeBlockReceiptsRps: n.blockReceipts?.requestsPerSec ?? null,
      anvilBlockReceiptsRps: a.blockReceipts?.requestsPerSec ?? null,
      blockReceiptsRpsRatio: ratio(n.blockReceipts?.requestsPerSec, a.blockReceipts?.requestsPerSec),
      getLogsRangeLogs: logsInRange,
      cores: scaling?.cores ?? null,
      nodeCallDistinctRpsByWorkers: scaling?.callDistinctRps ?? null,
      nodeCallDistinctP99MsByWorkers: scaling?.callDistinctP99Ms ?? null,
      nodeCallDistinctRpsPerWorkerByWorkers: scaling?.callDistinctPerWorkerRps ?? null,
      nodeCallTracerTxPerSecByWorkers: scaling?.callTracerTxPerSec ?? null,
      nodeCallTracerTxPerSecPerWorkerByWorkers: scaling?.callTracerPerWorkerTxPerSec ?? null,
      scalingRuns: scaling?.runs ?? null,
      nodeBlockReceiptsBlockTxs: receiptBlockTxs.node,
      anvilBlockReceiptsBlockTxs: receiptBlockTxs.anvil,
      errors: all.reduce((s, x) => s + ('errors' in x ? x.errors : x.rejected), 0) + (scaling?.errors ?? 0),
      maxForeignCpuPercent: Math.max(0, ...all.map((x) => x.foreignCpuPercent)),
      stats,
      cpu,
      runs,
      colocated: 'load generator, node and Anvil share the machine cores',
    };
    type StatKey = keyof typeof stats;
    const fmt = (key: StatKey, n: number) => (key.endsWith('Ms') ? n.toFixed(2) : rate(n));
    const spreadOf = (t: Target, key: StatKey) => {
      const s = stats[key][t];
      return s === null ? '' : `${fmt(key, s.mean)} (${fmt(key, s.min)}–${fmt(key, s.max)})`;
    };
    const cpuCell = (key: keyof typeof cpu) => {
      const side = (c: SideCpu | null) => (c === null ? '–' : `${c.nodeCpuPercent.toFixed(0)}/${c.anvilCpuPercent.toFixed(0)}/${c.loadGenCpuPercent.toFixed(0)}`);
      return `${side(cpu[key].node)} · ${side(cpu[key].anvil)}`;
    };
    const rows: string[][] = [['figure', 'strata node', 'anvil', 'node / anvil', 'node mean (min–max)', 'anvil mean (min–max)', 'CPU % node/anvil/load: node run · anvil run']];
    const add = (label: string, key: StatKey, nodeValue: number, anvilValue: number, cpuKey?: keyof typeof cpu) =>
      rows.push([label, fmt(key, nodeValue), fmt(key, anvilValue), fmtRatio(ratio(nodeValue, anvilValue)), spreadOf('node', key), spreadOf('anvil', key), cpuKey ? cpuCell(cpuKey) : '']);
    if (n.transfers && a.transfers) add('transfers e2e (tx/s)', 'transferTps', n.transfers.tps, a.transfers.tps, 'transfers');
    if (n.submission && a.submission) add(`transfers submit, ${SUBMIT_CONNECTIONS} connections (tx/s)`, 'submitTps', n.submission.submitTps, a.submission.submitTps);
    if (n.submissionFew && a.submissionFew) {
      add(`transfers submit, ${FEW_SUBMIT_CONNECTIONS} connections (tx/s)`, 'submitFewTps', n.submissionFew.submitTps, a.submissionFew.submitTps);
      add(`submit p99, ${FEW_SUBMIT_CONNECTIONS} connections (ms)`, 'submitFewP99Ms', n.submissionFew.submitP99Ms, a.submissionFew.submitP99Ms);
    }
    if (n.getBalance && a.getBalance) {
      add('eth_getBalance (req/s)', 'getBalanceRps', n.getBalance.requestsPerSec, a.getBalance.requestsPerSec, 'getBalance');
      add('eth_getBalance p99 (ms)', 'getBalanceP99Ms', n.getBalance.p99Ms, a.getBalance.p99Ms);
    }
    if (n.ethCall && a.ethCall) {
      add('eth_call balanceOf (req/s)', 'ethCallRps', n.ethCall.requestsPerSec, a.ethCall.requestsPerSec, 'ethCall');
      add('eth_call p99 (ms)', 'ethCallP99Ms', n.ethCall.p99Ms, a.ethCall.p99Ms);
    }
    if (n.ethCallDistinct && a.ethCallDistinct) {
      add('eth_call, distinct holders (req/s)', 'ethCallDistinctRps', n.ethCallDistinct.requestsPerSec, a.ethCallDistinct.requestsPerSec, 'ethCallDistinct');
      add('eth_call distinct p99 (ms)', 'ethCallDistinctP99Ms', n.ethCallDistinct.p99Ms, a.ethCallDistinct.p99Ms);
    }
    if (n.getLogs && a.getLogs) add(`eth_getLogs ${LOG_RANGE_BLOCKS} blocks (req/s)`, 'getLogsRps', n.getLogs.requestsPerSec, a.getLogs.requestsPerSec, 'getLogs');
    if (n.blockReceipts && a.blockReceipts) add('eth_getBlockReceipts full blocks (req/s)', 'blockReceiptsRps', n.blockReceipts.requestsPerSec, a.blockReceipts.requestsPerSec, 'blockReceipts');
    let scalingText = '';
    if (scaling) {
      const counts = Object.keys(scaling.callDistinctRps);
      const line = (label: string, values: Record<string, number>, digits = 0) => [label, ...counts.map((c) => (digits > 0 ? values[c]!.toFixed(digits) : rate(values[c]!)))];
      scalingText = `\n\nScaling with execution workers (${scaling.cores} cores; per worker = figure / min(workers, cores)):\n${table([
        ['figure', ...counts.map((c) => `${c} worker${c === '1' ? '' : 's'}`)],
        line('eth_call distinct (req/s)', scaling.callDistinctRps),
        line('eth_call distinct p99 (ms)', scaling.callDistinctP99Ms, 2),
        line('eth_call distinct per worker (req/s)', scaling.callDistinctPerWorkerRps),
        line('callTracer (tx/s)', scaling.callTracerTxPerSec),
        line('callTracer per worker (tx/s)', scaling.callTracerPerWorkerTxPerSec),
      ])}`;
    }
    const callCost = output.nodeEthCallDistinctThreadUs;
    const callCostText = callCost === null ? '' : `\neth_call on distinct holders, node threads per call (mean of rounds): ${threadCostText(callCost)}`;
    const text = `${table(rows)}\n(1 s blocks, 30M gas: ≤ 1,428 transfers per block on both; ${output.errors} errors; foreign CPU ≤ ${output.maxForeignCpuPercent.toFixed(1)}%)${callCostText}${scalingText}`;
    emitReport(text, output, values.json);
  } finally {
    await stopAll();
    home?.remove();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:node failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
