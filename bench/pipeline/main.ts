/**
 * `npm run bench:pipeline [-- --quick] [--json] [--cpu-prof DIR]`
 *
 * Signed transfers through the whole node, without the 30M-gas block ceiling: one validator
 * (a real `stratad` on 127.0.0.1) whose genesis block gas limit holds 60,000 transfers, with a
 * 400 ms `timeout_commit` and a mempool that holds the whole burst. Many senders' pre-signed
 * EIP-1559 transfers are submitted as fast as the node accepts them (JSON-RPC batches over
 * several keep-alive connections).
 * - `pipelineTxPerSec`: transfers over the time from the first submission until the block
 *   holding the last one is served by the RPC (executed, SC-committed, SS-applied, stored).
 * - `pipelineStageMs`: per stage, milliseconds per block, from the node's own histograms on
 *   `/metrics` between the first submission and the end: execute, sc_commit, ss_apply, sign,
 *   block_store (mean over the blocks made, with bucket-interpolated p50/p99), and admission's
 *   two parts summed over the run and divided by the blocks that carried transfers: recover
 *   (sender recovery on the RPC thread: a JSON-RPC batch's senders are recovered together on
 *   native threads beforehand, so for batches it is near zero) and admission (every other check).
 * - `ecrecoverCeilingTxPerSec`: sender recovery alone — the node's batched native recovery
 *   (libsecp256k1 on one native thread per core) over the same transfers, in the same run
 *   (after the node stopped, so the two never share the cores); `ecrecoverOneThreadTxPerSec`
 *   the same on one thread.
 * Goal: the pipeline reaches at least half the ceiling. The run waits for a quiet machine first
 * and reports the CPU other processes used during it (`foreignCpuPercent`) and the load average.
 * `--cpu-prof DIR`: a V8 CPU profile of the node (all threads) in DIR when it stops; summarise
 * it with `node dist/bench/node/profile-top.js DIR/*.cpuprofile`.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig } from '../../src/config/index.js';
import { benchNodeArgs, initNodeHome, setBlockGasLimit, startNode, type RunningProcess } from '../node/node-process.js';
import { RpcClient } from '../node/rpc-client.js';
import { signTransfers } from '../node/transfers.js';
import { emitReport, rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from '../rpc/cpu.js';
import { recoverCeiling } from './recover-ceiling.js';
import { followInclusion, submitBatches } from './submit.js';
import { scrapeStages, stageDeltas, type StageDelta } from './stage-metrics.js';

const EVM_CHAIN_ID = 713715;
/** Transfers one block may hold: its gas limit is this many times 21,000. */
const BLOCK_TRANSFERS = 60_000;
const TRANSFER_GAS = 21_000;
const BLOCK_MS = 400;
const CONNECTIONS = 4;
const BATCH = 200;
const TIMEOUT_MS = 600_000;
const QUIET_PERCENT = 5;
const QUIET_WAIT_MS = 30_000;
/** The throughput the issue sizes the storage pipeline for. */
const TARGET_TPS = 150_000;
const BLOCK_STAGES = ['execute', 'sc_commit', 'ss_apply', 'sign', 'block_store'] as const;
const STAGE_HISTOGRAM = 'strata_block_stage_duration_seconds';
const ADMISSION_HISTOGRAM = 'strata_admission_seconds';

interface Size {
  senders: number;
  perSender: number;
}

const FULL: Size = { senders: 2_000, perSender: 30 };
const QUICK: Size = { senders: 1_000, perSender: 10 };

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** Per-stage figures in ms per block. */
type StageFigures = Record<string, { meanMs: number; p50Ms?: number; p99Ms?: number }>;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, 'cpu-prof': { type: 'string' } },
  });
  const size = values.quick ? QUICK : FULL;
  const total = size.senders * size.perSender;
  const threads = availableParallelism();
  log(`signing ${total} transfers from ${size.senders} senders…`);
  const raws = signTransfers(devAccounts(size.senders), size.perSender, EVM_CHAIN_ID, 'pipeline');

  const home = await initNodeHome({ devAccounts: size.senders, blockMs: BLOCK_MS, mempoolSize: total, maxTxsPerSender: size.perSender, evmChainId: EVM_CHAIN_ID });
  let node: RunningProcess | undefined;
  try {
    setBlockGasLimit(home, BLOCK_TRANSFERS * TRANSFER_GAS);
    node = await startNode(home, benchNodeArgs('', values['cpu-prof']));
    const metricsPort = (await loadConfig(home.home)).node.instrumentation.prometheusListenAddr.port;
    const poll = new RpcClient(home.httpPort, 1);
    // Block 1 commits the genesis state alone; transfers go into later blocks.
    while (Number(await poll.call<string>('eth_blockNumber')) < 2) await sleep(50);
    await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, [node.pid]);

    log(`pipeline: ${total} transfers, ${BATCH} per batch over ${CONNECTIONS} connections, ${BLOCK_MS} ms blocks of up to ${rate(BLOCK_TRANSFERS)} transfers`);
    const names = [STAGE_HISTOGRAM, ADMISSION_HISTOGRAM];
    const before = await scrapeStages(metricsPort, names);
    const fromBlock = Number(await poll.call<string>('eth_blockNumber'));
    const load = loadavg()[0]!;
    const cpu = cpuSnapshot([node.pid]);
    const started = performance.now();
    const inclusion = followInclusion(home.httpPort, fromBlock, total, TIMEOUT_MS);
    await submitBatches(home.httpPort, raws, BATCH, CONNECTIONS);
    const submitted = performance.now();
    const done = await inclusion;
    const foreign = foreignCpuPercent(cpu, cpuSnapshot([node.pid]));
    const after = await scrapeStages(metricsPort, names);
    poll.close();
    const seconds = (done.at - started) / 1000;
    const pipelineTxPerSec = total / seconds;
    const submitTxPerSec = total / ((submitted - started) / 1000);
    log(`pipeline: ${total} transfers in ${seconds.toFixed(2)} s over ${done.blocksWithTxs} blocks (submission ${((submitted - started) / 1000).toFixed(2)} s)`);

    const blockDeltas = stageDeltas(before, after, STAGE_HISTOGRAM);
    const admissionDeltas = stageDeltas(before, after, ADMISSION_HISTOGRAM);
    const pipelineStageMs: StageFigures = {};
    const missing = (stage: string): never => {
      throw new Error(`the node's /metrics has no ${stage} observations for the run`);
    };
    let serialSeconds = 0;
    for (const stage of BLOCK_STAGES) {
      const d: StageDelta = blockDeltas.get(stage) ?? missing(stage);
      if (d.count === 0) missing(stage);
      serialSeconds += d.seconds;
      pipelineStageMs[stage] = { meanMs: d.meanMs, p50Ms: d.p50Ms, p99Ms: d.p99Ms };
    }
    const recover = admissionDeltas.get('recover') ?? missing('recover');
    const checks = admissionDeltas.get('checks') ?? missing('checks');
    pipelineStageMs.recover = { meanMs: (recover.seconds * 1000) / done.blocksWithTxs };
    pipelineStageMs.admission = { meanMs: (checks.seconds * 1000) / done.blocksWithTxs };
    const blocks = blockDeltas.get('execute')!.count;

    await node.stop();
    node = undefined;

    log(`ceiling: sender recovery of the same ${total} transfers on ${threads} threads, then on 1`);
    const rawBytes = raws.map((r) => Buffer.from(r.slice(2), 'hex'));
    const ecrecoverCeilingTxPerSec = await recoverCeiling(rawBytes, EVM_CHAIN_ID, threads);
    const ecrecoverOneThreadTxPerSec = await recoverCeiling(rawBytes, EVM_CHAIN_ID, 1);

    const ratio = pipelineTxPerSec / ecrecoverCeilingTxPerSec;
    // The block stages run one after another on the node's main thread: their time per
    // transfer bounds a validator however many cores it has.
    const serialStagesTxPerSec = total / serialSeconds;
    const admissionUsPerTx = { recover: (recover.seconds * 1e6) / recover.count, checks: (checks.seconds * 1e6) / checks.count };
    const recoveryThreadsFor150k = Math.ceil(TARGET_TPS / ecrecoverOneThreadTxPerSec);
    const pipelinePerCore = pipelineTxPerSec / threads;
    const output = {
      transfers: total,
      senders: size.senders,
      blockMs: BLOCK_MS,
      blockGasLimit: BLOCK_TRANSFERS * TRANSFER_GAS,
      blocks,
      blocksWithTransfers: done.blocksWithTxs,
      transfersPerBlock: total / done.blocksWithTxs,
      seconds,
      pipelineTxPerSec,
      submitTxPerSec,
      pipelineStageMs,
      admissionUsPerTx,
      serialStagesTxPerSec,
      ecrecoverCeilingTxPerSec,
      ecrecoverOneThreadTxPerSec,
      threads,
      pipelineOverCeiling: ratio,
      goalMet: ratio >= 0.5,
      pipelinePerCoreTxPerSec: pipelinePerCore,
      recoveryThreadsFor150k,
      coresFor150kAtPipelinePerCore: Math.ceil(TARGET_TPS / pipelinePerCore),
      loadAverage1m: load,
      foreignCpuPercent: foreign,
    };
    const ms = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(1));
    const text = table([
      ['figure', 'value'],
      ['pipeline: transfers, submission to SS-applied (tx/s)', rate(pipelineTxPerSec)],
      ['submission accepted (tx/s)', rate(submitTxPerSec)],
      [`sender-recovery ceiling, ${threads} threads (tx/s)`, rate(ecrecoverCeilingTxPerSec)],
      ['sender recovery, 1 thread (tx/s)', rate(ecrecoverOneThreadTxPerSec)],
      ['pipeline / ceiling (goal ≥ 0.50)', `${ratio.toFixed(2)} ${ratio >= 0.5 ? 'met' : 'NOT met'}`],
      ['blocks / with transfers / transfers per block', `${blocks} / ${done.blocksWithTxs} / ${rate(total / done.blocksWithTxs)}`],
      ...Object.entries(pipelineStageMs).map(([stage, f]) => [`stage ${stage} ms/block: mean / p50 / p99`, `${ms(f.meanMs)} / ${ms(f.p50Ms)} / ${ms(f.p99Ms)}`]),
      ['admission µs/tx: recover / other checks', `${admissionUsPerTx.recover.toFixed(1)} / ${admissionUsPerTx.checks.toFixed(1)}`],
      ['block stages alone, one thread (tx/s)', rate(serialStagesTxPerSec)],
      ['pipeline per core (tx/s)', rate(pipelinePerCore)],
      [`150k tx/s: recovery threads needed (at 1-thread rate)`, String(recoveryThreadsFor150k)],
      [`150k tx/s: cores at today's pipeline per core`, rate(output.coresFor150kAtPipelinePerCore)],
      ['load average 1 min / foreign CPU (%)', `${load.toFixed(2)} / ${foreign.toFixed(1)}`],
    ]);
    const note =
      'Prediction assumes sender recovery scales linearly with threads (one per core, measured above) and that the block ' +
      `stages stay on one thread: those bound a validator at ~${rate(serialStagesTxPerSec)} tx/s on this machine's cores whatever their number.`;
    emitReport(`${text}\n${note}`, output, values.json);
  } finally {
    await node?.stop();
    home.remove();
  }
}

await main();
