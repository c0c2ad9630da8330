/**
 * The report of a suite run: `report.md` with the machine facts, a summary, and one table per
 * suite (figure, Strata, the peer, the ratio, the goal, met or not), plus the SVG charts it
 * links. Everything comes from the suites' JSON through the figure table of ./figures.ts.
 */
import { renderSvg, latencySpec, scalingSpec, throughputSpec, type Chart } from './charts.js';
import { evaluateFigure, formatNumber, latencyPoints, scalingPoints, type EvaluatedFigure, type Spread, type SuiteJson } from './evaluate.js';
import { SUITES, type SuiteName } from './figures.js';
import type { MachineFacts } from './machine.js';

/** How one suite's run ended. */
export interface SuiteOutcome {
  suite: SuiteName;
  /** True when the suite exited 0 and printed its JSON object. */
  ok: boolean;
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: string | null;
  seconds: number;
  /** The suite's JSON (null when it failed before printing it). */
  json: SuiteJson | null;
  /** The last lines of its stderr. */
  stderrTail: string;
  /** Why it counts as failed, in words (empty when ok). */
  failure: string;
}

/** What the report is built from. */
export interface ReportInput {
  outcomes: readonly SuiteOutcome[];
  machine: MachineFacts;
  quick: boolean;
  startedAt: Date;
  /** Suites selected but not started because the run was interrupted. */
  notRun?: readonly SuiteName[];
}

/** report.md and the charts it links. */
export interface Report {
  markdown: string;
  charts: Chart[];
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

function fmtSpread(s: Spread | null): string {
  if (s === null || s.rounds < 2) return '';
  return ` (${formatNumber(s.min)}–${formatNumber(s.max)}, σ ${formatNumber(s.stddev)}, ${s.rounds} rounds)`;
}

function verdict(f: EvaluatedFigure): string {
  if (f.goal === '') return '';
  if (f.met === null) return 'not measured';
  return f.met ? 'met' : '**missed**';
}

/** The markdown table of one suite's evaluated figures. */
export function figureTable(figures: readonly EvaluatedFigure[]): string {
  const rows = [
    '| figure | Strata | peer | peer value | Strata / peer | goal | met |',
    '|---|--:|---|--:|--:|---|---|',
  ];
  for (const f of figures) {
    const strata = f.strata === null ? 'not measured' : `${formatNumber(f.strata)}${fmtSpread(f.strataSpread)}`;
    const peer = f.peerName === null ? '' : f.peer === null ? 'not measured' : `${formatNumber(f.peer)}${fmtSpread(f.peerSpread)}`;
    const ratio = f.ratio === null ? '' : `${f.ratio.toFixed(2)}×`;
    rows.push(`| ${cell(`${f.label} (${f.unit})`)} | ${strata} | ${cell(f.peerName ?? '')} | ${peer} | ${ratio} | ${cell(f.goal)} | ${verdict(f)} |`);
  }
  return rows.join('\n');
}

function machineTable(m: MachineFacts): string {
  return [
    '| | |',
    '|---|---|',
    `| cores | ${m.cores} |`,
    `| CPU | ${cell(m.cpuModel)} |`,
    `| memory | ${m.memoryGiB} GiB (${m.freeMemoryGiB} GiB free at start) |`,
    `| load average (1 min) at start | ${m.loadAverage1m} |`,
    `| OS | ${cell(m.os)} |`,
    `| Node.js | ${m.node} |`,
    `| RocksDB | ${m.rocksdb} |`,
    `| commit | ${m.commit}${m.dirty ? ' (with uncommitted changes)' : ''} |`,
  ].join('\n');
}

function fence(text: string): string {
  const body = text.trimEnd() || '(no output)';
  return ['```text', body.replace(/```/g, "'''"), '```'].join('\n');
}

/** Builds report.md and renders the charts. */
export async function buildReport(input: ReportInput): Promise<Report> {
  const charts: Chart[] = [];
  const sections: string[] = [];
  const summary = ['| suite | status | time | goals met |', '|---|---|--:|--:|'];
  for (const outcome of input.outcomes) {
    const spec = SUITES[outcome.suite];
    const time = `${outcome.seconds.toFixed(0)} s`;
    const lines = [`## ${outcome.suite}: ${spec.title}`, ''];
    if (!outcome.ok || outcome.json === null) {
      summary.push(`| ${outcome.suite} | **failed** | ${time} | |`);
      lines.push(`**Failed**: ${outcome.failure}. The last lines of its stderr:`, '', fence(outcome.stderrTail));
      sections.push(lines.join('\n'));
      continue;
    }
    const figures = spec.figures.map((f) => evaluateFigure(f, outcome.json!));
    const withGoal = figures.filter((f) => f.goal !== '');
    summary.push(`| ${outcome.suite} | ran | ${time} | ${withGoal.filter((f) => f.met === true).length} of ${withGoal.length} |`);
    lines.push(figureTable(figures), '');
    const rendered: Array<[string, string, ReturnType<typeof throughputSpec>]> = [
      ['throughput', `${outcome.suite}: Strata against the peer`, throughputSpec(`${outcome.suite}: Strata against the peer`, figures)],
      ['latency', `${outcome.suite}: latency percentiles`, latencySpec(`${outcome.suite}: latency percentiles (ms)`, latencyPoints(spec.latency, outcome.json))],
      ['scaling', `${outcome.suite}: scaling with workers`, scalingSpec(`${outcome.suite}: throughput by workers`, scalingPoints(spec.scaling, outcome.json))],
    ];
    for (const [kind, title, vl] of rendered) {
      if (vl === null) continue;
      const chart = { file: `${outcome.suite}-${kind}.svg`, title, svg: await renderSvg(vl) };
      charts.push(chart);
      lines.push(`![${title}](${chart.file})`, '');
    }
    sections.push(lines.join('\n').trimEnd());
  }
  const failed = input.outcomes.filter((o) => !o.ok);
  const notRun = input.notRun ?? [];
  for (const suite of notRun) summary.push(`| ${suite} | not run (interrupted) | | |`);
  const total = input.outcomes.length + notRun.length;
  const status =
    (failed.length === 0 && notRun.length === 0
      ? `All ${total} suites ran.`
      : `${failed.length} of ${total} suites failed${failed.length ? `: ${failed.map((o) => o.suite).join(', ')}` : ''}.`) +
    (notRun.length ? ` Interrupted before ${notRun.join(', ')}.` : '');
  const markdown = [
    '# Strata benchmark report',
    '',
    `${input.startedAt.toISOString()} · commit ${input.machine.commit} · ${input.quick ? 'quick' : 'full'} run · ${status}`,
    '',
    'Every ratio is Strata / peer, both measured in the same run on the same machine; the load',
    'generators share its cores. Values with a spread are the mean of the rounds (min–max, σ).',
    '',
    '## Machine',
    '',
    machineTable(input.machine),
    '',
    '## Summary',
    '',
    summary.join('\n'),
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
  return { markdown, charts };
}
