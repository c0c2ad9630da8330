/**
 * `npm run bench:trace [-- --quick] [--json] [--txs N] [--steps-sample N] [--seed S] [--cpu-prof-dir DIR] [--tracers LIST]`
 *
 * `--tracers` times only the named ones (comma-separated: callTracer, structLog, jsTracer; default all).
 *
 * debug_traceTransaction, the node against Anvil in one run on this machine. Both get the same
 * signed workload from one sender: the Probe pair (test/fixtures/Probe.sol), then N mixed
 * transactions from the seeded generator of bench/trace/workload.ts (nested calls of every
 * kind, reverts, panics, out-of-gas, creations, self-destructs, logs, precompiles, plain
 * transfers, contract-creation transactions). The block gas limit is 1G on both so that the N
 * transactions land in one block (Anvil mines on demand; the node's block interval is long
 * enough to catch the burst — the table says how many blocks it took).
 *
 * Each tracer is compared with Anvil in Anvil's fastest mode for it, so two Anvils get the
 * workload: one started without `--steps-tracing` (its callTracer and JavaScript tracers
 * replay the transaction, fast) and one started with it (its struct logger needs the steps it
 * records while mining; in that mode its other tracers crawl). Goals and ratios use the fast
 * mode: callTracer and JS against the plain Anvil, the struct logger against the step-tracing
 * one. The step-tracing Anvil's callTracer and JS figures are reported too, measured on the
 * first `--steps-sample` transactions (default 20), since at ~1 tx/s the whole workload
 * would dominate the run.
 *
 * Every transaction is traced once per tracer — callTracer, the struct logger (default
 * options), and the JavaScript opcode counter — one request at a time, the servers in turn,
 * after a short untimed warm-up. Reported per tracer and server: transactions traced per
 * second, per-transaction p50/p99 latency, and the server's peak RSS during the phase. A
 * tracer the node refuses on every transaction is reported as not served (JSON null). Tracing
 * a transaction replays the block up to it on the node (geth's way).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { emitReport, rate, table } from '../report.js';
import { benchNodeArgs, initNodeHome, setBlockGasLimit, startNode, type NodeHome, type RunningProcess } from '../node/node-process.js';
import { RpcClient } from '../node/rpc-client.js';
import { alignAnvilCoinbase, fundOnAnvil, startTracingAnvil } from './anvil.js';
import { runTracePhase, type PhaseResult } from './phase.js';
import { submitAndMine } from './submit.js';
import { generateInteractions, probeDeployment } from './workload.js';

const EVM_CHAIN_ID = 713715;
const BLOCK_GAS_LIMIT = 1_000_000_000;
/** Long enough for a burst of a few hundred signed transactions to land in one block. */
const BLOCK_MS = 3000;
const DEV_BALANCE = 10_000n * 10n ** 18n;
const FULL_TXS = 200;
const QUICK_TXS = 60;
const WARMUP = 10;
/** Transactions the step-tracing Anvil's callTracer and JS tracer are timed on (its slow mode for them). */
const STEPS_SAMPLE = 20;
/**
 * A generous per-transaction deadline, so no tracer is cut short by geth's 5 s default; the
 * node's default `max-trace-timeout` (30 s), which refuses a longer one.
 */
const TIMEOUT = '30s';
const OPCODE_COUNTER = '{count: 0, step: function() { this.count++ }, fault: function() {}, result: function() { return this.count }}';

type TracerName = 'callTracer' | 'structLog' | 'jsTracer';
/** `anvil`: started without `--steps-tracing`; `anvilSteps`: with it. */
type Target = 'node' | 'anvil' | 'anvilSteps';
/** The Anvil mode a tracer's goal is measured against: the faster one for that tracer. */
type PeerTarget = Exclude<Target, 'node'>;

const TRACERS: Record<TracerName, { label: string; config: object; peer: PeerTarget; alsoSteps: boolean }> = {
  callTracer: { label: 'callTracer', config: { tracer: 'callTracer', timeout: TIMEOUT }, peer: 'anvil', alsoSteps: true },
  structLog: { label: 'struct logger', config: { timeout: TIMEOUT }, peer: 'anvilSteps', alsoSteps: false },
  jsTracer: { label: 'JS opcode counter', config: { tracer: OPCODE_COUNTER, timeout: TIMEOUT }, peer: 'anvil', alsoSteps: true },
};

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** A phase served when at least one trace succeeded. */
function served(result: PhaseResult | undefined): result is PhaseResult {
  return result !== undefined && result.errors < result.traces;
}

function ratio(a: number | undefined, b: number | undefined): number | null {
  return a !== undefined && b !== undefined && b > 0 ? a / b : null;
}

const fmtRatio = (r: number | null) => (r === null ? '' : `${r.toFixed(2)}×`);
const fmtMs = (r: PhaseResult | undefined) => (served(r) ? `${r.p50Ms.toFixed(2)} / ${r.p99Ms.toFixed(2)}` : '');
const fmtRss = (r: PhaseResult | undefined) => (r?.peakRssMiB == null ? '' : `${r.peakRssMiB.toFixed(0)}${r.peakResetOk ? '' : '*'}`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      txs: { type: 'string' },
      'steps-sample': { type: 'string' },
      seed: { type: 'string', default: '20261121' },
      'cpu-prof-dir': { type: 'string' },
      tracers: { type: 'string' },
    },
  });
  const tracerNames = Object.keys(TRACERS) as TracerName[];
  const selected = values.tracers === undefined ? tracerNames : values.tracers.split(',').map((name) => name.trim());
  const unknown = selected.filter((name) => !(tracerNames as string[]).includes(name));
  if (unknown.length > 0 || selected.length === 0) throw new RangeError(`--tracers takes names among ${tracerNames.join(', ')}; got ${values.tracers}`);
  const tracersToRun = tracerNames.filter((name) => selected.includes(name));
  const count = values.txs !== undefined ? Number(values.txs) : values.quick ? QUICK_TXS : FULL_TXS;
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`--txs must be a positive integer, got ${values.txs}`);
  const stepsSample = values['steps-sample'] !== undefined ? Number(values['steps-sample']) : Math.min(STEPS_SAMPLE, count);
  if (!Number.isSafeInteger(stepsSample) || stepsSample < 1) throw new RangeError(`--steps-sample must be a positive integer, got ${values['steps-sample']}`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`--seed must be a uint32, got ${values.seed}`);
  const profileDir = values['cpu-prof-dir'] ? resolve(values['cpu-prof-dir']) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  log(`bench:trace ${values.quick ? 'quick' : 'full'} · ${count} mixed txs (seed ${seed}) · ${tracersToRun.map((name) => TRACERS[name].label).join(', ')}`);

  const started: RunningProcess[] = [];
  const stopAll = () => Promise.all(started.map((p) => p.stop()));
  const onSignal = () => {
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let home: NodeHome | undefined;
  try {
    const [account] = devAccounts(1);
    const sender = { privateKey: account!.privateKey, address: account!.address };
    // One account sends the whole workload before a block is cut, as on Anvil (which has no per-sender cap).
    home = await initNodeHome({ devAccounts: 1, blockMs: BLOCK_MS, mempoolSize: 4 * count + 100, maxTxsPerSender: count + 10, evmChainId: EVM_CHAIN_ID });
    setBlockGasLimit(home, BLOCK_GAS_LIMIT);
    const node = await startNode(home, benchNodeArgs('', profileDir));
    started.push(node);
    const anvil = await startTracingAnvil({ chainId: EVM_CHAIN_ID, gasLimit: BLOCK_GAS_LIMIT, mining: 'manual', stepsTracing: false });
    started.push(anvil);
    const anvilSteps = await startTracingAnvil({ chainId: EVM_CHAIN_ID, gasLimit: BLOCK_GAS_LIMIT, mining: 'manual', stepsTracing: true });
    started.push(anvilSteps);
    for (const peer of [anvil, anvilSteps]) {
      await fundOnAnvil(peer.port, [sender.address], DEV_BALANCE);
      await alignAnvilCoinbase(node.port, peer.port);
    }
    log(`· node pid ${node.pid} on :${node.port}, anvil pid ${anvil.pid} on :${anvil.port}, anvil --steps-tracing pid ${anvilSteps.pid} on :${anvilSteps.port}`);

    const mineAnvil = async (client: RpcClient) => {
      await client.call('evm_mine');
    };
    const deployment = probeDeployment(sender, EVM_CHAIN_ID, 0);
    await Promise.all([
      submitAndMine(node.port, deployment.txs),
      submitAndMine(anvil.port, deployment.txs, { mine: mineAnvil }),
      submitAndMine(anvilSteps.port, deployment.txs, { mine: mineAnvil }),
    ]);
    const txs = generateInteractions(sender, deployment, { seed, count, chainId: EVM_CHAIN_ID, maxDepth: 4, firstNonce: deployment.txs.length });
    const [nodeReceipts, anvilReceipts, anvilStepsReceipts] = await Promise.all([
      submitAndMine(node.port, txs),
      submitAndMine(anvil.port, txs, { mine: mineAnvil }),
      submitAndMine(anvilSteps.port, txs, { mine: mineAnvil }),
    ]);
    const hashes = nodeReceipts.map((r) => r.transactionHash);
    const blocksOf = (receipts: typeof nodeReceipts) => new Set(receipts.map((r) => r.blockNumber)).size;
    const nodeBlocks = blocksOf(nodeReceipts);
    const anvilBlocks = blocksOf(anvilReceipts);
    const gasOf = (receipts: typeof nodeReceipts) => receipts.reduce((s, r) => s + Number(r.gasUsed), 0);
    const differs = (peer: typeof nodeReceipts) => (r: (typeof nodeReceipts)[0], i: number) => r.gasUsed !== peer[i]!.gasUsed || r.status !== peer[i]!.status;
    const mismatched = nodeReceipts.filter(differs(anvilReceipts)).length + nodeReceipts.filter(differs(anvilStepsReceipts)).length;
    log(`· ${count} txs mined: node ${nodeBlocks} block(s), anvil ${anvilBlocks}; ${(gasOf(nodeReceipts) / 1e6).toFixed(1)} Mgas; ${mismatched} receipts differ`);

    const results: Record<Target, Partial<Record<TracerName, PhaseResult>>> = { node: {}, anvil: {}, anvilSteps: {} };
    const servers: Record<Target, RunningProcess> = { node, anvil, anvilSteps };
    let turn = 0;
    for (const tracer of tracersToRun) {
      const { peer, alsoSteps, config, label } = TRACERS[tracer];
      const pair: Target[] = turn++ % 2 === 0 ? ['node', peer] : [peer, 'node'];
      const order: Target[] = alsoSteps ? [...pair, 'anvilSteps'] : pair;
      for (const target of order) {
        const server = servers[target];
        // The step-tracing Anvil's slow mode for this tracer: timed on a sample only.
        const sample = target === 'anvilSteps' && peer !== 'anvilSteps' ? hashes.slice(0, stepsSample) : hashes;
        const result = await runTracePhase(server.pid, server.port, sample, config, Math.min(WARMUP, sample.length));
        results[target][tracer] = result;
        log(`${target} ${label}: ${served(result) ? `${rate(result.txPerSec)} tx/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, peak RSS ${fmtRss(result)} MiB` : 'not served'}${result.errors ? `, ${result.errors} errors (${result.firstError.slice(0, 160)})` : ''}`);
      }
    }

    const figure = (target: Target, tracer: TracerName) => {
      const r = results[target][tracer];
      return served(r) ? r : undefined;
    };
    const perSec = (target: Target, tracer: TracerName) => figure(target, tracer)?.txPerSec ?? null;
    const output = {
      quick: values.quick,
      seed,
      txs: count,
      nodeBlocks,
      anvilBlocks,
      receiptMismatches: mismatched,
      stepsSample,
      // The Anvil mode each tracer's anvil*TxPerSec and ratio come from: its fastest for that tracer.
      anvilModes: { callTracer: 'plain', structLog: 'steps-tracing', jsTracer: 'plain' },
      callTracerTxPerSec: perSec('node', 'callTracer'),
      anvilCallTracerTxPerSec: perSec('anvil', 'callTracer'),
      anvilStepsCallTracerTxPerSec: perSec('anvilSteps', 'callTracer'),
      callTracerRatio: ratio(figure('node', 'callTracer')?.txPerSec, figure('anvil', 'callTracer')?.txPerSec),
      structLogTxPerSec: perSec('node', 'structLog'),
      anvilStructLogTxPerSec: perSec('anvilSteps', 'structLog'),
      structLogRatio: ratio(figure('node', 'structLog')?.txPerSec, figure('anvilSteps', 'structLog')?.txPerSec),
      jsTracerTxPerSec: perSec('node', 'jsTracer'),
      anvilJsTracerTxPerSec: perSec('anvil', 'jsTracer'),
      anvilStepsJsTracerTxPerSec: perSec('anvilSteps', 'jsTracer'),
      jsTracerRatio: ratio(figure('node', 'jsTracer')?.txPerSec, figure('anvil', 'jsTracer')?.txPerSec),
      results,
      colocated: 'client, node and Anvil share the machine cores',
    };
    const rows: string[][] = [['tracer', 'strata tx/s', 'anvil tx/s (mode)', 'strata / anvil', 'anvil --steps-tracing tx/s', 'strata p50/p99 ms', 'anvil p50/p99 ms', 'strata peak RSS MiB', 'anvil peak RSS MiB']];
    for (const tracer of tracersToRun) {
      const { peer, alsoSteps, label } = TRACERS[tracer];
      const n = results.node[tracer];
      const a = results[peer][tracer];
      const steps = results.anvilSteps[tracer];
      rows.push([
        label,
        served(n) ? rate(n.txPerSec) : 'not served',
        `${served(a) ? rate(a.txPerSec) : 'not served'} (${peer === 'anvil' ? 'plain' : 'steps'})`,
        fmtRatio(ratio(figure('node', tracer)?.txPerSec, figure(peer, tracer)?.txPerSec)),
        alsoSteps ? (served(steps) ? `${rate(steps.txPerSec)} (${steps.traces} txs)` : 'not served') : '(the mode above)',
        fmtMs(n),
        fmtMs(a),
        fmtRss(n),
        fmtRss(a),
      ]);
    }
    const text = `${table(rows)}\n(${count} txs, node ${nodeBlocks} block(s), anvil ${anvilBlocks}; ratios against Anvil's fastest mode per tracer; sequential requests on one connection; * = lifetime peak, not reset)`;
    emitReport(text, output, values.json);
  } finally {
    await stopAll();
    home?.remove();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:trace failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
