/**
 * Runs one benchmark suite as a child process with `--json` (and `--quick`), streams its stderr
 * lines to the progress display and a log, and reads its JSON object from stdout. A suite that
 * exits non-zero, is killed, or prints no JSON object is a failed outcome, not an exception:
 * the run goes on with the next suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SUITE_NAMES, type SuiteName } from './figures.js';
import type { SuiteJson } from './evaluate.js';
import type { SuiteOutcome } from './report.js';

/** How a suite's entry point is started. */
export interface SuiteEntry {
  suite: SuiteName;
  /** The main module: `bench/<suite>/main.js` next to this runner when compiled, `.ts` from source. */
  file: string;
  /** Node flags it needs (`--import tsx` when run from source). */
  execArgv: string[];
}

/** Lines of stderr kept for the report of a failed suite. */
const TAIL_LINES = 40;

/** The suites whose entry point exists beside this runner (bench/pipeline only once it is written). */
export function availableSuites(): SuiteEntry[] {
  const here = fileURLToPath(import.meta.url);
  const ext = extname(here);
  const benchDir = dirname(dirname(here));
  const execArgv = ext === '.ts' ? ['--import', 'tsx'] : [];
  return SUITE_NAMES.map((suite) => ({ suite, file: join(benchDir, suite, `main${ext}`), execArgv })).filter((e) => existsSync(e.file));
}

/** Hooks a run reports to. */
export interface RunHooks {
  /** Every stderr line of the suite. */
  onLine(line: string): void;
  /** The child started (so a signal handler can stop it). */
  onSpawn?(child: ChildProcess): void;
}

/** The last JSON object printed on its own line of `stdout`, if any. */
export function lastJsonObject(stdout: string): SuiteJson | null {
  const lines = stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const value: unknown = JSON.parse(lines[i]!);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as SuiteJson;
    } catch {
      // not JSON: keep looking
    }
  }
  return null;
}

/** Runs `entry` to the end and describes how it went. */
export function runSuite(entry: SuiteEntry, quick: boolean, cwd: string, hooks: RunHooks): Promise<SuiteOutcome> {
  const args = [...entry.execArgv, entry.file, '--json', ...(quick ? ['--quick'] : [])];
  const started = performance.now();
  return new Promise((resolve) => {
    // Its own process group: a Ctrl-C on the terminal reaches the suite once, forwarded by the
    // runner, not twice (a second SIGINT would cut short its stopping of its servers).
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    hooks.onSpawn?.(child);
    let stdout = '';
    const tail: string[] = [];
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split(/\r?\n|\r/);
      partial = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        hooks.onLine(line);
      }
    });
    let done = false;
    const finish = (exitCode: number | null, signal: string | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      if (partial !== '') {
        tail.push(partial);
        hooks.onLine(partial);
        partial = '';
      }
      const seconds = (performance.now() - started) / 1000;
      const json = lastJsonObject(stdout);
      let failure = '';
      if (spawnError) failure = `could not start: ${spawnError.message}`;
      else if (signal !== null) failure = `killed by ${signal} after ${seconds.toFixed(0)} s`;
      else if (exitCode !== 0) failure = `exited with code ${exitCode} after ${seconds.toFixed(0)} s`;
      else if (json === null) failure = 'exited 0 but printed no JSON object on stdout';
      resolve({ suite: entry.suite, ok: failure === '', exitCode, signal, seconds, json: failure === '' ? json : null, stderrTail: tail.slice(-TAIL_LINES).join('\n'), failure });
    };
    child.once('error', (error) => finish(null, null, error));
    child.once('close', (code, signal) => finish(code, signal));
  });
}
