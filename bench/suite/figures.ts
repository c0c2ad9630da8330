/**
 * What `npm run bench` knows about each suite: how long it usually takes, and which JSON fields
 * make its figures — Strata's value, the peer's value in the same run, and the goal (from the
 * suite's header comment and the issues that set it). The report builder derives every table
 * row and chart from this one table, so a new figure or goal is one entry here.
 *
 * Field paths are dot-separated paths into the suite's `--json` object (`stats.transferTps.node.mean`).
 * A figure whose path is missing from a run is reported as not measured, never as zero.
 */

/** Every suite the runner can run, in run order (pipeline only where bench/pipeline/main.ts exists). */
export const SUITE_NAMES = ['store', 'commit', 'node', 'trace', 'pipeline', 'sync', 'statesync'] as const;

/** A suite's name, also its folder under bench/ and its results file name. */
export type SuiteName = (typeof SUITE_NAMES)[number];

/** A threshold, either fixed or read from another field of the same run (times `factor`). */
export type Threshold = number | { field: string; factor?: number; label: string };

/** When a figure meets its goal. */
export type Goal =
  /** Strata / peer ≥ min. */
  | { kind: 'ratioAtLeast'; min: number }
  /** Strata's value ≥ min. */
  | { kind: 'atLeast'; min: Threshold }
  /** Strata's value ≤ max. */
  | { kind: 'atMost'; max: Threshold };

/** One figure of a suite. */
export interface FigureSpec {
  label: string;
  unit: string;
  /** Path of Strata's value. */
  strata: string;
  /** The peer measured in the same run, and the path of its value. */
  peer?: { name: string; field: string };
  goal?: Goal;
  /** Latencies and durations: lower is better (kept out of the throughput chart). */
  lowerIsBetter?: boolean;
  /** Paths of per-round statistics ({ mean, min, max, stddev, rounds }) shown as the spread. */
  spread?: { strata: string; peer?: string };
}

/** Latency percentiles of one request kind, per side. */
export interface LatencySpec {
  label: string;
  series: Array<{ side: string; p50?: string; p99?: string; max?: string }>;
}

/**
 * Throughput against the number of workers. The field holds `Array<{ workers: number; value:
 * number }>`; a suite that measures its execution pool at several sizes reports it so.
 */
export interface ScalingSpec {
  label: string;
  unit: string;
  field: string;
}

/** Everything the runner and the report know about one suite. */
export interface SuiteSpec {
  name: SuiteName;
  title: string;
  /** Typical wall time on a quiet 2-core machine, seconds: the progress bar's scale, not a limit. */
  expectedSeconds: { quick: number; full: number };
  figures: FigureSpec[];
  latency: LatencySpec[];
  scaling: ScalingSpec[];
}

const ANVIL = 'Anvil';

/** bench:pipeline's stages (keys of its `pipelineStageMs`) and their names in the report; the first five are per block with p50/p99. */
const PIPELINE_STAGES: ReadonlyArray<readonly [string, string]> = [
  ['execute', 'execution'],
  ['sc_commit', 'SC commit'],
  ['ss_apply', 'SS apply'],
  ['sign', 'header signing'],
  ['block_store', 'block store'],
  ['recover', 'admission: sender recovery'],
  ['admission', 'admission: other checks'],
];
const atLeastAnvil: Goal = { kind: 'ratioAtLeast', min: 1 };

/** Mean-of-rounds figure of bench:node with its spread, Strata against Anvil. */
function nodeFigure(label: string, unit: string, stat: string, goal?: Goal, lowerIsBetter = false): FigureSpec {
  return {
    label,
    unit,
    strata: `stats.${stat}.node.mean`,
    peer: { name: ANVIL, field: `stats.${stat}.anvil.mean` },
    ...(goal ? { goal } : {}),
    ...(lowerIsBetter ? { lowerIsBetter } : {}),
    spread: { strata: `stats.${stat}.node`, peer: `stats.${stat}.anvil` },
  };
}

/** Per-tracer figure of bench:trace against Anvil's fastest mode for that tracer. */
function traceFigure(label: string, key: 'callTracer' | 'structLog' | 'jsTracer', anvilMode: string): FigureSpec {
  const cap = key.charAt(0).toUpperCase() + key.slice(1);
  return { label, unit: 'tx/s', strata: `${key}TxPerSec`, peer: { name: `${ANVIL} (${anvilMode})`, field: `anvil${cap}TxPerSec` }, goal: atLeastAnvil };
}

/** The suites and their figures. */
export const SUITES: Record<SuiteName, SuiteSpec> = {
  store: {
    name: 'store',
    title: 'State store (bench:store)',
    expectedSeconds: { quick: 60, full: 900 },
    figures: [
      { label: 'get at a version', unit: 'reads/s', strata: 'napiGetPerSec', peer: { name: 'native driver', field: 'nativeGetPerSec' }, goal: { kind: 'ratioAtLeast', min: 0.7 } },
      { label: 'get at a version vs lmdb', unit: 'reads/s', strata: 'napiGetPerSec', peer: { name: 'lmdb', field: 'lmdbGetPerSec' }, goal: { kind: 'ratioAtLeast', min: 1 } },
      { label: 'get at a version vs classic-level', unit: 'reads/s', strata: 'napiGetPerSec', peer: { name: 'classic-level', field: 'classicLevelGetPerSec' }, goal: { kind: 'ratioAtLeast', min: 1 } },
      { label: 'getMany ×256', unit: 'keys/s', strata: 'napiGetManyPerSec', peer: { name: 'native driver', field: 'nativeGetManyPerSec' }, goal: { kind: 'ratioAtLeast', min: 0.85 } },
      { label: 'ingest transfers', unit: 'writes/s', strata: 'ingestWritesPerSec', peer: { name: 'native driver', field: 'nativeIngestWritesPerSec' }, goal: { kind: 'atLeast', min: 600_000 } },
      { label: 'ingest ERC-20', unit: 'writes/s', strata: 'erc20IngestWritesPerSec', peer: { name: 'native driver', field: 'nativeErc20IngestWritesPerSec' } },
      { label: 'load', unit: 'writes/s', strata: 'loadWritesPerSec', peer: { name: 'lmdb', field: 'lmdbLoadWritesPerSec' } },
      { label: 'prune', unit: 'versions/s', strata: 'pruneVersionsPerSec', peer: { name: 'native driver', field: 'nativePruneVersionsPerSec' } },
      { label: 'Cosmos SS write amp, split on / off', unit: '×', strata: 'writeAmpRatio', goal: { kind: 'atMost', max: 0.5 }, lowerIsBetter: true },
      { label: 'EVM get via composite', unit: 'reads/s', strata: 'evmGetViaCompositePerSec', peer: { name: 'EVM SS direct', field: 'evmGetDirectPerSec' }, goal: { kind: 'ratioAtLeast', min: 0.95 } },
      { label: 'ingest mixed, split on', unit: 'writes/s', strata: 'ingestSplitOnWritesPerSec', peer: { name: 'split off', field: 'ingestSplitOffWritesPerSec' }, goal: { kind: 'atLeast', min: 600_000 } },
    ],
    latency: [],
    scaling: [],
  },
  commit: {
    name: 'commit',
    title: 'State commitment (bench:commit)',
    expectedSeconds: { quick: 60, full: 600 },
    figures: [
      { label: 'commit one 60,000-transfer block (median)', unit: 'ms', strata: 'commitBlockMs', goal: { kind: 'atMost', max: 400 }, lowerIsBetter: true },
      { label: 'commit rate', unit: 'transfers/s', strata: 'commitTxPerSec', peer: { name: '@ethereumjs/mpt', field: 'mptCommitTxPerSec' }, goal: { kind: 'ratioAtLeast', min: 10 } },
      { label: 'snapshot write', unit: 'MB/s', strata: 'snapshotWriteMBPerSec' },
    ],
    latency: [],
    scaling: [],
  },
  node: {
    name: 'node',
    title: 'Node against Anvil (bench:node)',
    expectedSeconds: { quick: 300, full: 1200 },
    figures: [
      nodeFigure('transfers end to end', 'tx/s', 'transferTps', atLeastAnvil),
      nodeFigure('transaction submission', 'tx/s', 'submitTps', atLeastAnvil),
      nodeFigure('eth_getBalance', 'req/s', 'getBalanceRps', atLeastAnvil),
      nodeFigure('eth_getBalance p99', 'ms', 'getBalanceP99Ms', undefined, true),
      nodeFigure('eth_call balanceOf, one holder', 'req/s', 'ethCallRps', atLeastAnvil),
      nodeFigure('eth_call balanceOf, distinct holders', 'req/s', 'ethCallDistinctRps', atLeastAnvil),
      nodeFigure('eth_call distinct holders p99', 'ms', 'ethCallDistinctP99Ms', { kind: 'atMost', max: 10 }, true),
      nodeFigure('eth_getLogs, 1,000 blocks', 'req/s', 'getLogsRps', atLeastAnvil),
      nodeFigure('eth_getBlockReceipts, full blocks', 'req/s', 'blockReceiptsRps', atLeastAnvil),
    ],
    latency: [
      { label: 'eth_getBalance', series: [{ side: 'Strata', p99: 'nodeGetBalanceP99Ms' }, { side: ANVIL, p99: 'anvilGetBalanceP99Ms' }] },
      { label: 'eth_call one holder', series: [{ side: 'Strata', p99: 'nodeEthCallP99Ms' }, { side: ANVIL, p99: 'anvilEthCallP99Ms' }] },
      { label: 'eth_call distinct', series: [{ side: 'Strata', p99: 'nodeEthCallDistinctP99Ms' }, { side: ANVIL, p99: 'anvilEthCallDistinctP99Ms' }] },
    ],
    scaling: [
      { label: 'eth_call distinct holders', unit: 'req/s', field: 'nodeCallDistinctRpsByWorkers' },
      { label: 'eth_call distinct holders, per worker', unit: 'req/s', field: 'nodeCallDistinctRpsPerWorkerByWorkers' },
      { label: 'callTracer', unit: 'tx/s', field: 'nodeCallTracerTxPerSecByWorkers' },
      { label: 'callTracer, per worker', unit: 'tx/s', field: 'nodeCallTracerTxPerSecPerWorkerByWorkers' },
    ],
  },
  trace: {
    name: 'trace',
    title: 'debug_traceTransaction against Anvil (bench:trace)',
    expectedSeconds: { quick: 240, full: 600 },
    figures: [
      traceFigure('callTracer', 'callTracer', 'plain'),
      { label: 'callTracer, Anvil --steps-tracing (sample)', unit: 'tx/s', strata: 'callTracerTxPerSec', peer: { name: `${ANVIL} (--steps-tracing)`, field: 'anvilStepsCallTracerTxPerSec' } },
      traceFigure('struct logger', 'structLog', '--steps-tracing'),
      traceFigure('JS opcode counter', 'jsTracer', 'plain'),
      { label: 'JS opcode counter, Anvil --steps-tracing (sample)', unit: 'tx/s', strata: 'jsTracerTxPerSec', peer: { name: `${ANVIL} (--steps-tracing)`, field: 'anvilStepsJsTracerTxPerSec' } },
    ],
    latency: [
      { label: 'callTracer', series: [{ side: 'Strata', p50: 'results.node.callTracer.p50Ms', p99: 'results.node.callTracer.p99Ms' }, { side: ANVIL, p50: 'results.anvil.callTracer.p50Ms', p99: 'results.anvil.callTracer.p99Ms' }] },
      { label: 'struct logger', series: [{ side: 'Strata', p50: 'results.node.structLog.p50Ms', p99: 'results.node.structLog.p99Ms' }, { side: ANVIL, p50: 'results.anvilSteps.structLog.p50Ms', p99: 'results.anvilSteps.structLog.p99Ms' }] },
      { label: 'JS opcode counter', series: [{ side: 'Strata', p50: 'results.node.jsTracer.p50Ms', p99: 'results.node.jsTracer.p99Ms' }, { side: ANVIL, p50: 'results.anvil.jsTracer.p50Ms', p99: 'results.anvil.jsTracer.p99Ms' }] },
    ],
    scaling: [{ label: 'callTracer', unit: 'tx/s', field: 'callTracerByWorkers' }],
  },
  pipeline: {
    name: 'pipeline',
    title: 'Signed transfers through the whole node (bench:pipeline)',
    expectedSeconds: { quick: 180, full: 600 },
    figures: [
      { label: 'sustained transfers, submission to SS-applied', unit: 'tx/s', strata: 'pipelineTxPerSec', peer: { name: 'sender-recovery ceiling', field: 'ecrecoverCeilingTxPerSec' }, goal: { kind: 'ratioAtLeast', min: 0.5 } },
      { label: 'submission accepted', unit: 'tx/s', strata: 'submitTxPerSec' },
      { label: 'block stages alone, one thread', unit: 'tx/s', strata: 'serialStagesTxPerSec' },
      { label: 'sender recovery, one thread', unit: 'tx/s', strata: 'ecrecoverOneThreadTxPerSec' },
      ...PIPELINE_STAGES.map(([stage, label]): FigureSpec => ({ label: `${label} per block`, unit: 'ms', strata: `pipelineStageMs.${stage}.meanMs`, lowerIsBetter: true })),
    ],
    latency: PIPELINE_STAGES.slice(0, 5).map(([stage, label]): LatencySpec => ({
      label,
      series: [{ side: 'Strata', p50: `pipelineStageMs.${stage}.p50Ms`, p99: `pipelineStageMs.${stage}.p99Ms` }],
    })),
    scaling: [],
  },
  sync: {
    name: 'sync',
    title: 'Block sync (bench:sync)',
    expectedSeconds: { quick: 180, full: 600 },
    figures: [
      { label: 'follower catch-up', unit: 'tx/s', strata: 'followerCatchUpTxPerSec', peer: { name: 'validator produce', field: 'validatorProduceTxPerSec' }, goal: { kind: 'ratioAtLeast', min: 3 } },
      { label: 'follower catch-up', unit: 'blocks/s', strata: 'followerCatchUpBlocksPerSec' },
      { label: 'follower lag p99 under 1,000 tx/s', unit: 'ms', strata: 'followerLagMsP99', goal: { kind: 'atMost', max: { field: 'blockIntervalMs', label: 'one block interval' } }, lowerIsBetter: true },
    ],
    latency: [{ label: 'follower lag', series: [{ side: 'Strata', p50: 'lagMedianMs', p99: 'followerLagMsP99', max: 'lagMaxMs' }] }],
    scaling: [],
  },
  statesync: {
    name: 'statesync',
    title: 'Snapshots and state sync (bench:statesync)',
    expectedSeconds: { quick: 40, full: 900 },
    figures: [
      { label: 'state-sync import, split off', unit: 'MB/s', strata: 'stateSyncImportMBps', peer: { name: 'disk sequential write', field: 'diskSeqWriteMBps' }, goal: { kind: 'ratioAtLeast', min: 0.5 } },
      { label: 'state-sync import, split on', unit: 'MB/s', strata: 'stateSyncImportMBpsSplit', peer: { name: 'disk sequential write', field: 'diskSeqWriteMBps' }, goal: { kind: 'ratioAtLeast', min: 0.5 } },
      { label: 'snapshot write', unit: 'MB/s', strata: 'snapshotWriteMBps', peer: { name: 'disk sequential write', field: 'diskSeqWriteMBps' } },
      { label: 'empty home to serving, split off', unit: 's', strata: 'stateSyncSeconds', lowerIsBetter: true },
      { label: 'empty home to serving, split on', unit: 's', strata: 'stateSyncSecondsSplit', lowerIsBetter: true },
    ],
    latency: [],
    scaling: [],
  },
};
