/**
 * `npm run bench [-- --quick] [--only store,commit,node,trace,pipeline,sync,statesync] [--out DIR]`
 *
 * The benchmark suite as one command: runs each selected suite (all by default, in the order
 * above; `pipeline` once bench/pipeline/main.ts exists) as a child process with `--json`, one
 * after another so they never share the cores, with a progress bar per suite. Then writes
 * `<out>/<YYYY-MM-DD>-<short commit>/` (default out: bench/results) with each suite's JSON
 * (`<suite>.json`), its full stderr (`<suite>.stderr.log`), `report.md` (machine facts, then
 * one table per suite: figure, Strata, the peer, the ratio, the goal, met or not) and the SVG
 * charts report.md links. A suite that fails is reported as failed with the tail of its stderr
 * and the run goes on; the exit code is 0 only when every suite ran.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SUITE_NAMES, SUITES, type SuiteName } from './figures.js';
import { machineFacts } from './machine.js';
import { createProgress } from './progress.js';
import { buildReport, type SuiteOutcome } from './report.js';
import { availableSuites, runSuite } from './runner.js';

/** Bad command-line input: said plainly, exit code 2. */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The repository root: the nearest folder above this file with the project's package.json. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'strata') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('the Strata repository root was not found above bench/suite');
    dir = up;
  }
}

/** The selected suites in run order, checked against those that exist. */
function selectSuites(only: string | undefined): ReturnType<typeof availableSuites> {
  const available = availableSuites();
  if (only === undefined) return available;
  const names = only.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new UsageError('--only needs at least one suite name');
  for (const name of names) {
    if (!(SUITE_NAMES as readonly string[]).includes(name)) throw new UsageError(`unknown suite "${name}" in --only; the suites are ${SUITE_NAMES.join(', ')}`);
    if (!available.some((e) => e.suite === name)) throw new UsageError(`suite "${name}" has no bench/${name}/main.ts yet; available: ${available.map((e) => e.suite).join(', ')}`);
  }
  return available.filter((e) => names.includes(e.suite));
}

/** A fresh results folder `<out>/<date>-<commit>`, numbered when one exists already. */
function resultsDir(out: string, date: Date, commit: string): string {
  const base = join(out, `${date.toISOString().slice(0, 10)}-${commit}`);
  let dir = base;
  for (let n = 2; existsSync(dir); n++) dir = `${base}-${n}`;
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const root = repositoryRoot();
  const selected = selectSuites(values.only);
  const quick = values.quick ?? false;
  const startedAt = new Date();
  const machine = machineFacts(root);
  const dir = resultsDir(resolve(values.out ?? join(root, 'bench', 'results')), startedAt, machine.commit);
  process.stderr.write(`bench: ${selected.map((e) => e.suite).join(', ')} (${quick ? 'quick' : 'full'}) on ${machine.cores} cores, commit ${machine.commit} → ${dir}\n`);

  let current: ChildProcess | null = null;
  let interrupted: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = signal;
    process.stderr.write(`bench: ${signal}: stopping the running suite (it stops its servers), then writing the report\n`);
    // Once: the suite stops its own servers on the first signal and would be cut short by a second.
    current?.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const progress = createProgress();
  for (const entry of selected) progress.add(entry.suite, SUITES[entry.suite].expectedSeconds[quick ? 'quick' : 'full']);
  const outcomes: SuiteOutcome[] = [];
  try {
    for (const entry of selected) {
      if (interrupted) break;
      const bar = progress.start(entry.suite);
      const log = createWriteStream(join(dir, `${entry.suite}.stderr.log`));
      const outcome = await runSuite(entry, quick, root, {
        onLine: (line) => {
          log.write(`${line}\n`);
          bar.line(line);
        },
        onSpawn: (child) => {
          current = child;
          // A signal that came between the bar's start and the spawn.
          if (interrupted) child.kill(interrupted);
        },
      });
      current = null;
      await new Promise<void>((done) => log.end(done));
      bar.finish(outcome.ok, outcome.seconds);
      if (outcome.json !== null) writeFileSync(join(dir, `${entry.suite}.json`), `${JSON.stringify(outcome.json, null, 2)}\n`);
      outcomes.push(outcome);
    }
  } finally {
    progress.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const skipped = selected.slice(outcomes.length).map((e) => e.suite);
  const report = await buildReport({ outcomes, machine, quick, startedAt, notRun: skipped });
  for (const chart of report.charts) writeFileSync(join(dir, chart.file), chart.svg);
  writeFileSync(join(dir, 'report.md'), report.markdown);
  const failed = outcomes.filter((o) => !o.ok).map((o) => o.suite);
  process.stderr.write(
    `bench: ${outcomes.length - failed.length} of ${selected.length} suites ran` +
      `${failed.length ? `; failed: ${failed.join(', ')}` : ''}${skipped.length ? `; not run (interrupted): ${skipped.join(', ')}` : ''}` +
      ` · report: ${join(dir, 'report.md')}\n`,
  );
  if (interrupted) return 130;
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
