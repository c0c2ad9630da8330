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
  ['recover', 'admission: sender recovery on the RPC thread'],
  ['admission', 'admission: other checks'],
];

/** Strata / peer ≥ `min`. */
function ratioAtLeast(min: number): Goal {
  return { kind: 'ratioAtLeast', min };
}

const atLeastAnvil = ratioAtLeast(1);

/** A figure of Strata's value at `strata` beside `peer`'s value at `peerField` of the same run. */
function peerFigure(label: string, unit: string, strata: string, peer: string, peerField: string, goal?: Goal): FigureSpec {
  return { label, unit, strata, peer: { name: peer, field: peerField }, ...(goal ? { goal } : {}) };
}

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
  return peerFigure(label, 'tx/s', `${key}TxPerSec`, `${ANVIL} (${anvilMode})`, `anvil${cap}TxPerSec`, atLeastAnvil);
}

/** A suite's entry: `name` is also its key in SUITES; a suite without latency or scaling figures leaves them out. */
function suite(
  name: SuiteName,
  title: string,
  expectedSeconds: SuiteSpec['expectedSeconds'],
  figures: FigureSpec[],
  more: { latency?: LatencySpec[]; scaling?: ScalingSpec[] } = {},
): SuiteSpec {
  return { name, title, expectedSeconds, figures, latency: more.latency ?? [], scaling: more.scaling ?? [] };
}

/** The suites and their figures. */
export const SUITES: Record<SuiteName, SuiteSpec> = {
  store: suite('store', 'State store (bench:store)', { quick: 60, full: 900 }, [
    peerFigure('get at a version', 'reads/s', 'napiGetPerSec', 'native driver', 'nativeGetPerSec', ratioAtLeast(0.7)),
    peerFigure('get at a version vs lmdb', 'reads/s', 'napiGetPerSec', 'lmdb', 'lmdbGetPerSec', ratioAtLeast(1)),
    peerFigure('get at a version vs classic-level', 'reads/s', 'napiGetPerSec', 'classic-level', 'classicLevelGetPerSec', ratioAtLeast(1)),
    peerFigure('getMany ×256', 'keys/s', 'napiGetManyPerSec', 'native driver', 'nativeGetManyPerSec', ratioAtLeast(0.85)),
    peerFigure('ingest transfers', 'writes/s', 'ingestWritesPerSec', 'native driver', 'nativeIngestWritesPerSec', { kind: 'atLeast', min: 600_000 }),
    peerFigure('ingest ERC-20', 'writes/s', 'erc20IngestWritesPerSec', 'native driver', 'nativeErc20IngestWritesPerSec'),
    peerFigure('load', 'writes/s', 'loadWritesPerSec', 'lmdb', 'lmdbLoadWritesPerSec'),
    peerFigure('prune', 'versions/s', 'pruneVersionsPerSec', 'native driver', 'nativePruneVersionsPerSec'),
    { label: 'Cosmos SS write amp, split on / off', unit: '×', strata: 'writeAmpRatio', goal: { kind: 'atMost', max: 0.5 }, lowerIsBetter: true },
    peerFigure('EVM get via composite', 'reads/s', 'evmGetViaCompositePerSec', 'EVM SS direct', 'evmGetDirectPerSec', ratioAtLeast(0.95)),
    peerFigure('ingest mixed, split on', 'writes/s', 'ingestSplitOnWritesPerSec', 'split off', 'ingestSplitOffWritesPerSec', { kind: 'atLeast', min: 600_000 }),
  ]),
  commit: suite('commit', 'State commitment (bench:commit)', { quick: 60, full: 600 }, [
    { label: 'commit one 60,000-transfer block (median)', unit: 'ms', strata: 'commitBlockMs', goal: { kind: 'atMost', max: 400 }, lowerIsBetter: true },
    peerFigure('commit rate', 'transfers/s', 'commitTxPerSec', '@ethereumjs/mpt', 'mptCommitTxPerSec', ratioAtLeast(10)),
    { label: 'snapshot write', unit: 'MB/s', strata: 'snapshotWriteMBPerSec' },
  ]),
  node: suite('node', 'Node against Anvil (bench:node)', { quick: 300, full: 1200 }, [
    nodeFigure('transfers end to end', 'tx/s', 'transferTps', atLeastAnvil),
    nodeFigure('transaction submission, 64 connections', 'tx/s', 'submitTps', atLeastAnvil),
    nodeFigure('transaction submission, 8 connections', 'tx/s', 'submitFewTps'),
    nodeFigure('eth_getBalance', 'req/s', 'getBalanceRps', atLeastAnvil),
    nodeFigure('eth_getBalance p99', 'ms', 'getBalanceP99Ms', undefined, true),
    nodeFigure('eth_call balanceOf, one holder', 'req/s', 'ethCallRps', atLeastAnvil),
    nodeFigure('eth_call balanceOf, distinct holders', 'req/s', 'ethCallDistinctRps', atLeastAnvil),
    nodeFigure('eth_call distinct holders p99', 'ms', 'ethCallDistinctP99Ms', { kind: 'atMost', max: 10 }, true),
    nodeFigure('eth_getLogs, 1,000 blocks', 'req/s', 'getLogsRps', atLeastAnvil),
    nodeFigure('eth_getBlockReceipts, full blocks', 'req/s', 'blockReceiptsRps', atLeastAnvil),
  ], {
    latency: [
      { label: 'submission, 8 connections', series: [{ side: 'Strata', p99: 'nodeSubmitFewP99Ms' }, { side: ANVIL, p99: 'anvilSubmitFewP99Ms' }] },
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
  }),
  trace: suite('trace', 'debug_traceTransaction against Anvil (bench:trace)', { quick: 240, full: 600 }, [
    traceFigure('callTracer', 'callTracer', 'plain'),
    peerFigure('callTracer, Anvil --steps-tracing (sample)', 'tx/s', 'callTracerTxPerSec', `${ANVIL} (--steps-tracing)`, 'anvilStepsCallTracerTxPerSec'),
    traceFigure('struct logger', 'structLog', '--steps-tracing'),
    traceFigure('JS opcode counter', 'jsTracer', 'plain'),
    peerFigure('JS opcode counter, Anvil --steps-tracing (sample)', 'tx/s', 'jsTracerTxPerSec', `${ANVIL} (--steps-tracing)`, 'anvilStepsJsTracerTxPerSec'),
  ], {
    latency: [
      { label: 'callTracer', series: [{ side: 'Strata', p50: 'results.node.callTracer.p50Ms', p99: 'results.node.callTracer.p99Ms' }, { side: ANVIL, p50: 'results.anvil.callTracer.p50Ms', p99: 'results.anvil.callTracer.p99Ms' }] },
      { label: 'struct logger', series: [{ side: 'Strata', p50: 'results.node.structLog.p50Ms', p99: 'results.node.structLog.p99Ms' }, { side: ANVIL, p50: 'results.anvilSteps.structLog.p50Ms', p99: 'results.anvilSteps.structLog.p99Ms' }] },
      { label: 'JS opcode counter', series: [{ side: 'Strata', p50: 'results.node.jsTracer.p50Ms', p99: 'results.node.jsTracer.p99Ms' }, { side: ANVIL, p50: 'results.anvil.jsTracer.p50Ms', p99: 'results.anvil.jsTracer.p99Ms' }] },
    ],
    scaling: [{ label: 'callTracer', unit: 'tx/s', field: 'callTracerByWorkers' }],
  }),
  pipeline: suite('pipeline', 'Signed transfers through the whole node (bench:pipeline)', { quick: 180, full: 600 }, [
    peerFigure('sustained transfers, submission to SS-applied', 'tx/s', 'pipelineTxPerSec', 'sender-recovery ceiling', 'ecrecoverCeilingTxPerSec', ratioAtLeast(0.5)),
    { label: 'submission accepted', unit: 'tx/s', strata: 'submitTxPerSec' },
    { label: 'block stages alone, one thread', unit: 'tx/s', strata: 'serialStagesTxPerSec' },
    { label: 'sender recovery, one thread', unit: 'tx/s', strata: 'ecrecoverOneThreadTxPerSec' },
    ...PIPELINE_STAGES.map(([stage, label]): FigureSpec => ({ label: `${label} per block`, unit: 'ms', strata: `pipelineStageMs.${stage}.meanMs`, lowerIsBetter: true })),
  ], {
    latency: PIPELINE_STAGES.slice(0, 5).map(([stage, label]): LatencySpec => ({
      label,
      series: [{ side: 'Strata', p50: `pipelineStageMs.${stage}.p50Ms`, p99: `pipelineStageMs.${stage}.p99Ms` }],
    })),
  }),
  sync: suite('sync', 'Block sync (bench:sync)', { quick: 180, full: 600 }, [
    peerFigure('follower catch-up', 'tx/s', 'followerCatchUpTxPerSec', 'validator produce', 'validatorProduceTxPerSec', ratioAtLeast(3)),
    { label: 'follower catch-up', unit: 'blocks/s', strata: 'followerCatchUpBlocksPerSec' },
    { label: 'follower lag p99 under 1,000 tx/s', unit: 'ms', strata: 'followerLagMsP99', goal: { kind: 'atMost', max: { field: 'blockIntervalMs', label: 'one block interval' } }, lowerIsBetter: true },
  ], {
    latency: [{ label: 'follower lag', series: [{ side: 'Strata', p50: 'lagMedianMs', p99: 'followerLagMsP99', max: 'lagMaxMs' }] }],
  }),
  statesync: suite('statesync', 'Snapshots and state sync (bench:statesync)', { quick: 40, full: 900 }, [
    peerFigure('state-sync import, split off', 'MB/s', 'stateSyncImportMBps', 'disk sequential write', 'diskSeqWriteMBps', ratioAtLeast(0.5)),
    peerFigure('state-sync import, split on', 'MB/s', 'stateSyncImportMBpsSplit', 'disk sequential write', 'diskSeqWriteMBps', ratioAtLeast(0.5)),
    peerFigure('snapshot write', 'MB/s', 'snapshotWriteMBps', 'disk sequential write', 'diskSeqWriteMBps'),
    { label: 'empty home to serving, split off', unit: 's', strata: 'stateSyncSeconds', lowerIsBetter: true },
    { label: 'empty home to serving, split on', unit: 's', strata: 'stateSyncSecondsSplit', lowerIsBetter: true },
  ]),
};
