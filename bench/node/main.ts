/**
 * `npm run bench:node [-- --quick] [--json] [--rounds N] [--suite all|transfers|reads] [--cpu-prof-dir DIR]`
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
 *   eth_sendRawTransaction over 8 keep-alive connections, from the first submission until
 *   the last is seen in a block;
 * - reads: `eth_getBalance` and ERC-20 `balanceOf` via `eth_call` at 64 keep-alive
 *   connections (raw-socket load generator, 1 s warm-up), requests/s and p99. `eth_call` runs
 *   twice: the same `balanceOf(holder)` every time (the figure; the node answers a
 *   repeated call at a height from its call cache), and `balanceOf` of a different address
 *   every request, which measures EVM execution itself.
 * Node and Anvil run alternately within each round (the order flips every round) and the
 * median round is reported; each round uses its own senders. The load generator shares the
 * two cores with the server it drives, so read figures are co-located figures; the node/Anvil
 * ratios, taken in the same run, are what compare.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { devAccounts, type DevAccount } from '../../src/chain/genesis-file.js';
import { emitReport, rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from '../rpc/cpu.js';
import type { LoadResult } from '../rpc/load.js';
import { startAnvil } from './anvil-process.js';
import { initNodeHome, startNode, type NodeHome, type RunningProcess } from './node-process.js';
import { deployToken, readBodies, runReads, signTokenDeploy } from './reads.js';
import { RpcClient } from './rpc-client.js';
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
const SUBMIT_CONNECTIONS = 8;
const READ_CONNECTIONS = 64;
const INCLUSION_TIMEOUT_MS = 180_000;
/** Runs wait (at most QUIET_WAIT_MS) for other processes to use under this share of the machine. */
const QUIET_PERCENT = 5;
const QUIET_WAIT_MS = 20_000;
/** 10,000 ether, what `stratad init` gives each development account. */
const DEV_BALANCE_HEX = `0x${(10_000n * 10n ** 18n).toString(16)}`;

type Target = 'node' | 'anvil';
type Suite = 'all' | 'transfers' | 'reads';

/** A measured run with the foreign CPU it saw. */
type Measured<T> = T & { foreignCpuPercent: number };

/** Everything measured for one target. */
interface TargetRuns {
  transfers: Array<Measured<TransferRun>>;
  getBalance: Array<Measured<LoadResult>>;
  ethCall: Array<Measured<LoadResult>>;
  ethCallDistinct: Array<Measured<LoadResult>>;
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function medianBy<T>(runs: T[], key: (run: T) => number): T | undefined {
  if (runs.length === 0) return undefined;
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)];
}

/** Waits for a quiet machine, runs `work` and records the foreign CPU during it. */
async function gated<T extends object>(pids: number[], work: () => Promise<T>): Promise<Measured<T>> {
  await waitForQuietMachine(QUIET_PERCENT, QUIET_WAIT_MS, pids);
  const before = cpuSnapshot(pids);
  const result = await work();
  return { ...result, foreignCpuPercent: foreignCpuPercent(before, cpuSnapshot(pids)) };
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
  if (!['all', 'transfers', 'reads'].includes(suite)) throw new RangeError(`--suite must be all, transfers or reads, got ${values.suite}`);
  const profileDir = values['cpu-prof-dir'] ? resolve(values['cpu-prof-dir']) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  // Account 0 deploys the Token; round r sends from accounts 1 + r·senders onward.
  const accounts = devAccounts(1 + size.senders * size.rounds);
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
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
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
    const workloads = Array.from({ length: size.rounds }, (_, r) =>
      signTransfers(accounts.slice(1 + r * size.senders, 1 + (r + 1) * size.senders), size.perSender, EVM_CHAIN_ID, `round-${r}`),
    );
    signMs = performance.now() - signMs;
    log(`· signed ${rate(workloads.length * size.senders * size.perSender)} transfers in ${(signMs / 1000).toFixed(2)} s`);

    const targets: Record<Target, RunningProcess> = { node, anvil };
    const runs: Record<Target, TargetRuns> = {
      node: { transfers: [], getBalance: [], ethCall: [], ethCallDistinct: [] },
      anvil: { transfers: [], getBalance: [], ethCall: [], ethCallDistinct: [] },
    };
    const pids = [node.pid, anvil.pid];
    for (let r = 0; r < size.rounds; r++) {
      const order: Target[] = r % 2 === 0 ? ['node', 'anvil'] : ['anvil', 'node'];
      if (suite !== 'reads') {
        for (const target of order) {
          const run = await gated(pids, () => runTransfers(targets[target].port, workloads[r]!, SUBMIT_CONNECTIONS, INCLUSION_TIMEOUT_MS));
          runs[target].transfers.push(run);
          log(`round ${r + 1}/${size.rounds} ${target} transfers: ${rate(run.tps)} tx/s e2e (${run.seconds.toFixed(2)} s, ${run.blocks} blocks), submit ${rate(run.submitTps)} tx/s, ${run.rejected} rejected, foreign CPU ${run.foreignCpuPercent.toFixed(1)}%`);
        }
      }
      if (suite !== 'transfers') {
        for (const method of ['getBalance', 'ethCall', 'ethCallDistinct'] as const) {
          for (const target of order) {
            const run = await gated(pids, () => runReads(targets[target].port, bodies[method], READ_CONNECTIONS, size.readSeconds));
            runs[target][method].push(run);
            log(`round ${r + 1}/${size.rounds} ${target} ${method}: ${rate(run.requestsPerSec)} req/s, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, ${run.errors} errors, foreign CPU ${run.foreignCpuPercent.toFixed(1)}%`);
          }
        }
      }
    }

    const pick = (t: Target) => ({
      transfers: medianBy(runs[t].transfers, (x) => x.tps),
      getBalance: medianBy(runs[t].getBalance, (x) => x.requestsPerSec),
      ethCall: medianBy(runs[t].ethCall, (x) => x.requestsPerSec),
      ethCallDistinct: medianBy(runs[t].ethCallDistinct, (x) => x.requestsPerSec),
    });
    const n = pick('node');
    const a = pick('anvil');
    const all = [...Object.values(runs.node), ...Object.values(runs.anvil)].flat();
    const output = {
      quick: values.quick,
      rounds: size.rounds,
      blockMs: BLOCK_MS,
      blockGasLimit: GAS_LIMIT,
      transfers: size.senders * size.perSender,
      senders: size.senders,
      submitConnections: SUBMIT_CONNECTIONS,
      readConnections: READ_CONNECTIONS,
      readSeconds: size.readSeconds,
      nodeTransferTps: n.transfers?.tps ?? null,
      anvilTransferTps: a.transfers?.tps ?? null,
      transferTpsRatio: ratio(n.transfers?.tps, a.transfers?.tps),
      nodeSubmitTps: n.transfers?.submitTps ?? null,
      anvilSubmitTps: a.transfers?.submitTps ?? null,
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
      anvilEthCallDistinctP99Ms: a.ethCallDistinct?.p99Ms ?? null,
      errors: all.reduce((s, x) => s + ('errors' in x ? x.errors : x.rejected), 0),
      maxForeignCpuPercent: Math.max(0, ...all.map((x) => x.foreignCpuPercent)),
      runs,
      colocated: 'load generator, node and Anvil share the machine cores',
    };
    const runsOf = (t: Target, key: keyof TargetRuns) =>
      runs[t][key].map((x) => rate('tps' in x ? x.tps : x.requestsPerSec)).join(', ');
    const rows: string[][] = [['figure', 'strata node', 'anvil', 'node / anvil', 'node runs', 'anvil runs']];
    if (n.transfers && a.transfers) {
      rows.push(['transfers e2e (tx/s)', fmtRate(n.transfers.tps), fmtRate(a.transfers.tps), fmtRatio(output.transferTpsRatio), runsOf('node', 'transfers'), runsOf('anvil', 'transfers')]);
      rows.push(['transfers submit (tx/s)', fmtRate(n.transfers.submitTps), fmtRate(a.transfers.submitTps), fmtRatio(ratio(n.transfers.submitTps, a.transfers.submitTps)), '', '']);
    }
    if (n.getBalance && a.getBalance) {
      rows.push(['eth_getBalance (req/s)', fmtRate(n.getBalance.requestsPerSec), fmtRate(a.getBalance.requestsPerSec), fmtRatio(output.getBalanceRpsRatio), runsOf('node', 'getBalance'), runsOf('anvil', 'getBalance')]);
      rows.push(['eth_getBalance p99 (ms)', fmtMs(n.getBalance.p99Ms), fmtMs(a.getBalance.p99Ms), fmtRatio(ratio(n.getBalance.p99Ms, a.getBalance.p99Ms)), '', '']);
    }
    if (n.ethCall && a.ethCall) {
      rows.push(['eth_call balanceOf (req/s)', fmtRate(n.ethCall.requestsPerSec), fmtRate(a.ethCall.requestsPerSec), fmtRatio(output.ethCallRpsRatio), runsOf('node', 'ethCall'), runsOf('anvil', 'ethCall')]);
      rows.push(['eth_call p99 (ms)', fmtMs(n.ethCall.p99Ms), fmtMs(a.ethCall.p99Ms), fmtRatio(ratio(n.ethCall.p99Ms, a.ethCall.p99Ms)), '', '']);
    }
    if (n.ethCallDistinct && a.ethCallDistinct) {
      rows.push(['eth_call, distinct holders (req/s)', fmtRate(n.ethCallDistinct.requestsPerSec), fmtRate(a.ethCallDistinct.requestsPerSec), fmtRatio(output.ethCallDistinctRpsRatio), runsOf('node', 'ethCallDistinct'), runsOf('anvil', 'ethCallDistinct')]);
      rows.push(['eth_call distinct p99 (ms)', fmtMs(n.ethCallDistinct.p99Ms), fmtMs(a.ethCallDistinct.p99Ms), fmtRatio(ratio(n.ethCallDistinct.p99Ms, a.ethCallDistinct.p99Ms)), '', '']);
    }
    const text = `${table(rows)}\n(1 s blocks, 30M gas: ≤ 1,428 transfers per block on both; ${output.errors} errors; foreign CPU ≤ ${output.maxForeignCpuPercent.toFixed(1)}%)`;
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
