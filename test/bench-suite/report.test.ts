/**
 * The report builder of `npm run bench`: each suite's JSON (fixtures in the shape its main.ts
 * prints; store, commit and statesync are the output of real quick runs) → report.md tables
 * with the figure, Strata, the peer, the ratio, the goal and the verdict, and SVG charts whose
 * marks are the figures. A failed suite is reported with its stderr tail.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { evaluateFigure, formatNumber, type SuiteJson } from '../../bench/suite/evaluate.js';
import { SUITES, type SuiteName } from '../../bench/suite/figures.js';
import { machineFacts } from '../../bench/suite/machine.js';
import { buildReport, type SuiteOutcome } from '../../bench/suite/report.js';
import { readSvg } from './svg.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const fixture = (suite: string): SuiteJson => JSON.parse(readFileSync(join(HERE, 'fixtures', `${suite}.json`), 'utf8')) as SuiteJson;
const num = (json: SuiteJson, key: string) => json[key] as number;

const ok = (suite: SuiteName, json: SuiteJson): SuiteOutcome => ({ suite, ok: true, exitCode: 0, signal: null, seconds: 42, json, stderrTail: '', failure: '' });

/** The table row of `label (unit)` in the section of `suite`, split into cells. */
function row(markdown: string, suite: string, label: string): string[] {
  const start = markdown.indexOf(`## ${suite}:`);
  if (start < 0) throw new Error(`no section for ${suite}`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const line = section.split('\n').find((l) => l.startsWith(`| ${label} |`));
  if (!line) throw new Error(`no row "${label}" in ${suite}:\n${section}`);
  return line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, '').trim());
}

t.test('every suite with a goal-carrying figure, a failed suite, machine facts and charts', async (t) => {
  const store = fixture('store');
  const commit = fixture('commit');
  const statesync = fixture('statesync');
  const node = fixture('node');
  const trace = fixture('trace');
  const sync = fixture('sync');
  const failed: SuiteOutcome = {
    suite: 'pipeline', ok: false, exitCode: 1, signal: null, seconds: 3, json: null,
    stderrTail: 'bench:pipeline quick\nbench:pipeline failed: the validator refused to start', failure: 'exited with code 1 after 3 s',
  };
  const outcomes = [ok('store', store), ok('commit', commit), ok('node', node), ok('trace', trace), failed, ok('sync', sync), ok('statesync', statesync)];
  const machine = machineFacts(ROOT);
  const report = await buildReport({ outcomes, machine, quick: true, startedAt: new Date('2026-11-25T21:00:00Z') });
  const md = report.markdown;

  t.match(md, /^# Strata benchmark report/, 'a title');
  t.match(md, /1 of 7 suites failed: pipeline\./, 'the header says which suite failed');
  t.match(md, new RegExp(`\\| cores \\| ${machine.cores} \\|`), 'cores');
  t.match(md, /\| CPU \| \S/, 'CPU model');
  t.match(md, /\| memory \| [\d.]+ GiB/, 'memory');
  t.match(md, new RegExp(`\\| Node.js \\| ${process.version.replace(/\./g, '\\.')} \\|`), 'Node version');
  t.match(md, /\| RocksDB \| \d+\.\d+/, 'RocksDB version of the linked library');
  t.match(md, /\| OS \| \w+ /, 'OS');
  t.match(md, new RegExp(`\\| commit \\| ${machine.commit}`), 'commit');

  // store: Node-API against the native driver, goal ≥ 0.7×.
  const getRow = row(md, 'store', 'get at a version (reads/s)');
  const getRatio = num(store, 'napiGetPerSec') / num(store, 'nativeGetPerSec');
  t.same(getRow.slice(1), [formatNumber(num(store, 'napiGetPerSec')), 'native driver', formatNumber(num(store, 'nativeGetPerSec')), `${getRatio.toFixed(2)}×`, '≥ 0.7× native driver', getRatio >= 0.7 ? 'met' : '**missed**']);
  const ingestRow = row(md, 'store', 'ingest transfers (writes/s)');
  t.equal(ingestRow[5], '≥ 600,000 writes/s');
  t.equal(ingestRow[6], num(store, 'ingestWritesPerSec') >= 600_000 ? 'met' : '**missed**');

  // commit: ≤ 400 ms per block, ≥ 10× MPT.
  const blockRow = row(md, 'commit', 'commit one 60,000-transfer block (median) (ms)');
  t.equal(blockRow[6], num(commit, 'commitBlockMs') <= 400 ? 'met' : '**missed**');
  const mptRow = row(md, 'commit', 'commit rate (transfers/s)');
  t.equal(mptRow[4], `${(num(commit, 'commitTxPerSec') / num(commit, 'mptCommitTxPerSec')).toFixed(2)}×`);

  // node: the mean of the rounds with the spread; 0.09× on distinct eth_call is missed.
  const distinct = row(md, 'node', 'eth_call balanceOf, distinct holders (req/s)');
  t.equal(distinct[1], '1,749 (1,700–1,800, σ 40.8, 3 rounds)', 'Strata: mean, min–max, σ, rounds');
  t.equal(distinct[3], '18,515 (18,000–19,000, σ 409, 3 rounds)', 'Anvil: mean and spread');
  t.equal(distinct[4], '0.09×');
  t.equal(distinct[6], '**missed**');
  t.equal(row(md, 'node', 'eth_getLogs, 1,000 blocks (req/s)')[6], 'met', '2.3× Anvil meets ≥ 1×');
  const p99 = row(md, 'node', 'eth_call distinct holders p99 (ms)');
  t.equal(p99[5], '≤ 10 ms');
  t.equal(p99[6], '**missed**', 'a 90 ms p99 misses the 10 ms goal');

  // trace: callTracer against the plain Anvil, the struct logger against --steps-tracing.
  const call = row(md, 'trace', 'callTracer (tx/s)');
  t.same(call.slice(2, 7), ['Anvil (plain)', '520', '0.60×', '≥ 1× Anvil (plain)', '**missed**']);
  const steps = row(md, 'trace', 'callTracer, Anvil --steps-tracing (sample) (tx/s)');
  t.same(steps.slice(2, 5), ['Anvil (--steps-tracing)', '1.10', '281.82×'], 'the step-tracing figure is reported beside it');
  t.same(row(md, 'trace', 'struct logger (tx/s)').slice(2, 7), ['Anvil (--steps-tracing)', '80.0', '1.19×', '≥ 1× Anvil (--steps-tracing)', 'met']);
  const js = row(md, 'trace', 'JS opcode counter (tx/s)');
  t.same(js.slice(3, 7), ['not measured', '', '≥ 1× Anvil (plain)', 'not measured'], 'a peer that served nothing is not measured, not zero');

  // sync: catch-up ≥ 3× produce; lag p99 under one block interval (a field of the run).
  t.equal(row(md, 'sync', 'follower catch-up (tx/s)')[6], '**missed**');
  const lag = row(md, 'sync', 'follower lag p99 under 1,000 tx/s (ms)');
  t.same(lag.slice(5, 7), ['≤ one block interval (1,000) ms', 'met']);

  // statesync: import against the disk's sequential write, goal ≥ 0.5×.
  const imp = row(md, 'statesync', 'state-sync import, split off (MB/s)');
  const impRatio = num(statesync, 'stateSyncImportMBps') / num(statesync, 'diskSeqWriteMBps');
  t.equal(imp[6], impRatio >= 0.5 ? 'met' : '**missed**');

  // The failed suite: status, reason and its stderr tail.
  t.match(md, /\| pipeline \| \*\*failed\*\* \| 3 s \|/);
  t.match(md, /\*\*Failed\*\*: exited with code 1 after 3 s\. The last lines of its stderr:\n\n```text\nbench:pipeline quick\nbench:pipeline failed: the validator refused to start\n```/);
  t.notMatch(md, /pipeline-throughput\.svg/, 'no chart for a failed suite');

  // Charts: one throughput chart per suite with peers, latency where percentiles exist.
  const files = report.charts.map((c) => c.file).sort();
  t.same(files, ['commit-throughput.svg', 'node-latency.svg', 'node-throughput.svg', 'statesync-throughput.svg', 'store-throughput.svg', 'sync-latency.svg', 'sync-throughput.svg', 'trace-latency.svg', 'trace-throughput.svg']);
  for (const chart of report.charts) t.match(md, `](${chart.file})`, `report.md links ${chart.file}`);

  const bars = (suite: SuiteName) => {
    const json = outcomes.find((o) => o.suite === suite)!.json!;
    return SUITES[suite].figures.map((f) => evaluateFigure(f, json)).filter((f) => !f.lowerIsBetter && (f.strata ?? 0) > 0 && (f.peer ?? 0) > 0).length * 2;
  };
  for (const suite of ['store', 'node', 'trace', 'commit', 'sync', 'statesync'] as const) {
    const svg = report.charts.find((c) => c.file === `${suite}-throughput.svg`)!.svg;
    const { root, marks } = readSvg(svg);
    t.equal(root, 'svg', `${suite}: an SVG document`);
    const rects = marks.filter((m) => m.type === 'rect');
    t.equal(rects.reduce((s, m) => s + m.shapes, 0), bars(suite), `${suite}: one bar per side per figure with a peer`);
  }
  // node: p99 of three kinds × two sides; trace: p50 and p99 of three tracers × two sides,
  // without Anvil's JS tracer phase, in which every request failed.
  const latencyBars = (file: string) => readSvg(report.charts.find((c) => c.file === file)!.svg).marks.filter((m) => m.type === 'rect').reduce((s, m) => s + m.shapes, 0);
  t.equal(latencyBars('node-latency.svg'), 6);
  t.equal(latencyBars('trace-latency.svg'), 10);
  t.equal(latencyBars('sync-latency.svg'), 3, 'p50, p99 and max of the follower lag');
});

t.test('scaling with workers is charted when a suite reports per-worker figures', async (t) => {
  // bench:node's shape: objects keyed by the worker count; the suite also reads Array<{ workers, value }>.
  const node = {
    ...fixture('node'),
    nodeCallDistinctRpsByWorkers: { '1': 1700, '2': 3300, '4': 6100 },
    nodeCallTracerTxPerSecByWorkers: [{ workers: 1, value: 300 }, { workers: 2, value: 560 }, { workers: 4, value: 590 }],
  };
  const report = await buildReport({ outcomes: [ok('node', node)], machine: machineFacts(ROOT), quick: false, startedAt: new Date() });
  const chart = report.charts.find((c) => c.file === 'node-scaling.svg');
  t.ok(chart, 'a scaling chart');
  const { marks } = readSvg(chart!.svg);
  t.equal(marks.filter((m) => m.type === 'line').reduce((s, m) => s + m.shapes, 0), 2, 'a line per figure reported');
  t.equal(marks.filter((m) => m.type === 'symbol').reduce((s, m) => s + m.shapes, 0), 6, 'a point per worker count of each');
  t.match(report.markdown, '](node-scaling.svg)');
  t.match(report.markdown, /All 1 suites ran\./);
});

t.test('goals: ratio, fixed and field thresholds, and missing figures', async (t) => {
  const json: SuiteJson = { a: 10, b: 20, lag: 1200, interval: 1000, nested: { x: 5 } };
  const ratio = evaluateFigure({ label: 'r', unit: '/s', strata: 'a', peer: { name: 'P', field: 'b' }, goal: { kind: 'ratioAtLeast', min: 0.5 } }, json);
  t.equal(ratio.ratio, 0.5);
  t.equal(ratio.met, true, 'exactly at the goal is met');
  t.equal(evaluateFigure({ label: 'r', unit: '/s', strata: 'a', peer: { name: 'P', field: 'b' }, goal: { kind: 'ratioAtLeast', min: 0.51 } }, json).met, false);
  const lag = evaluateFigure({ label: 'l', unit: 'ms', strata: 'lag', goal: { kind: 'atMost', max: { field: 'interval', label: 'one interval' } } }, json);
  t.equal(lag.met, false);
  t.equal(lag.goal, '≤ one interval (1,000) ms');
  t.equal(evaluateFigure({ label: 'n', unit: '/s', strata: 'nested.x', goal: { kind: 'atLeast', min: 5 } }, json).met, true, 'dot paths');
  const missing = evaluateFigure({ label: 'm', unit: '/s', strata: 'absent', peer: { name: 'P', field: 'b' }, goal: { kind: 'ratioAtLeast', min: 1 } }, json);
  t.equal(missing.strata, null);
  t.equal(missing.ratio, null);
  t.equal(missing.met, null, 'not measured is neither met nor missed');
});
