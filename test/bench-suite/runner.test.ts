/**
 * `npm run bench` end to end: the compiled runner runs a real suite (statesync, the shortest in
 * quick mode: under a minute, where quick store takes one to four) as a child process and
 * writes the results folder — the suite's JSON, its stderr log, report.md with its
 * table and an SVG chart. Also: a suite process that fails is an outcome with its stderr tail,
 * and a bad `--only` is refused before anything runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { formatNumber } from '../../bench/suite/evaluate.js';
import { shortCommit } from '../../bench/suite/machine.js';
import { availableSuites, runSuite } from '../../bench/suite/runner.js';
import { readSvg } from './svg.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNER = join(ROOT, 'dist', 'bench', 'suite', 'main.js');
/** tsc on a loaded 2-core machine, then a quick statesync run: generous, but bounded. */
const BUILD_TIMEOUT_MS = 600_000;
const RUN_TIMEOUT_MS = 900_000;
// The build and the run together may pass the default per-file limit on a loaded machine.
t.setTimeout(BUILD_TIMEOUT_MS + RUN_TIMEOUT_MS + 120_000);

/** Runs the compiled runner to its end (killed at `timeoutMs`); `onStderr` sees its stderr as it comes. */
function runRunner(args: string[], timeoutMs: number, onStderr?: (text: string, child: ChildProcess) => void): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUNNER, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

t.test('build the runner and the suites', async (t) => {
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  t.equal(build.status, 0, `tsc: ${build.stdout}${build.stderr}`);
  t.ok(existsSync(RUNNER), 'dist/bench/suite/main.js');
});

t.test('the runner lists only suites that exist', async (t) => {
  const names = availableSuites().map((e) => e.suite);
  for (const suite of ['store', 'commit', 'node', 'trace', 'sync', 'statesync']) t.ok(names.includes(suite as never), `${suite} is listed`);
  t.equal(names.includes('pipeline'), existsSync(join(ROOT, 'bench', 'pipeline', 'main.ts')), 'pipeline only once bench/pipeline/main.ts exists');
});

t.test('a bad --only is refused with the suites to choose from, and nothing is written', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'strata-bench-suite-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const unknown = await runRunner(['--only', 'store,nosuch', '--out', out], 60_000);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, 'unknown suite "nosuch" in --only; the suites are store, commit, node, trace, pipeline, sync, statesync');
  t.same(readdirSync(out), [], 'no results folder');
});

t.test('a suite process that fails is a failed outcome with its stderr tail', async (t) => {
  const missing = join(ROOT, 'bench', 'no-such-suite', 'main.js');
  const lines: string[] = [];
  const outcome = await runSuite({ suite: 'store', file: missing, execArgv: [] }, true, ROOT, { onLine: (l) => lines.push(l) });
  t.equal(outcome.ok, false);
  t.equal(outcome.exitCode, 1);
  t.match(outcome.failure, /^exited with code 1 after \d+ s$/);
  t.match(outcome.stderrTail, 'Cannot find module');
  t.ok(lines.some((l) => l.includes('Cannot find module')), 'stderr lines reach the progress display');
  t.equal(outcome.json, null);
});

t.test('--only statesync --quick runs the real suite and writes the results folder', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'strata-bench-suite-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runRunner(['--only', 'statesync', '--quick', '--out', out], RUN_TIMEOUT_MS);
  t.equal(run.code, 0, run.stderr.slice(-2000));
  t.match(run.stderr, /\[bench\] statesync: started/, 'plain progress lines without a TTY');
  t.match(run.stderr, /\[bench\] statesync: done after \d+ s/);

  const dirs = readdirSync(out);
  const day = new Date().toISOString().slice(0, 10);
  t.same(dirs, [`${day}-${shortCommit(ROOT)}`], 'bench/results/<date>-<commit>');
  const dir = join(out, dirs[0]!);
  t.same(readdirSync(dir).sort(), ['report.md', 'statesync-throughput.svg', 'statesync.json', 'statesync.stderr.log']);

  const result = JSON.parse(readFileSync(join(dir, 'statesync.json'), 'utf8')) as Record<string, number>;
  t.type(result.stateSyncImportMBps, 'number');
  t.type(result.diskSeqWriteMBps, 'number');
  t.equal(result.accounts, 100_000, 'the suite ran with --quick');
  t.match(readFileSync(join(dir, 'statesync.stderr.log'), 'utf8'), /restore split=false/, 'its stderr is kept');

  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  t.match(md, /quick run · All 1 suites ran\./);
  const ratio = result.stateSyncImportMBps! / result.diskSeqWriteMBps!;
  t.match(
    md,
    `| state-sync import, split off (MB/s) | ${formatNumber(result.stateSyncImportMBps!)} | disk sequential write | ${formatNumber(result.diskSeqWriteMBps!)} | ${ratio.toFixed(2)}× | ≥ 0.5× disk sequential write | ${ratio >= 0.5 ? 'met' : '**missed**'} |`,
  );
  t.match(md, '](statesync-throughput.svg)');
  const { root, marks } = readSvg(readFileSync(join(dir, 'statesync-throughput.svg'), 'utf8'));
  t.equal(root, 'svg');
  t.equal(marks.filter((m) => m.type === 'rect').reduce((s, m) => s + m.shapes, 0), 6, 'Strata and the disk for three figures');
});

t.test('SIGINT stops the running suite, skips the rest and still writes the report', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'strata-bench-suite-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  let sent = false;
  const run = await runRunner(['--only', 'commit,statesync', '--quick', '--out', out], RUN_TIMEOUT_MS, (stderr, child) => {
    if (!sent && stderr.includes('[bench] commit: started')) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  t.ok(sent, 'the signal was sent while commit ran');
  t.equal(run.code, 130);
  t.match(run.stderr, 'not run (interrupted): statesync');
  const dir = join(out, readdirSync(out)[0]!);
  t.same(readdirSync(dir).sort(), ['commit.stderr.log', 'report.md'], 'no JSON of a suite that did not finish');
  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  t.match(md, /1 of 2 suites failed: commit\. Interrupted before statesync\./);
  t.match(md, /\*\*Failed\*\*: killed by SIGINT after \d+ s\./);
  t.match(md, '| statesync | not run (interrupted) | | |');
});
