/**
 * Crash reports: when the node fails for good — an uncaught exception, an unhandled rejection,
 * a halt of block production (an I/O or store failure) or of block sync (an app-hash mismatch)
 * — a JSON file under `data/crash-reports/` keeps what an operator needs to file it: the recent
 * log (at least 1,000 lines and 15 minutes), the stack of every failure seen, the node's status
 * and the versions. Written synchronously: the process may be about to exit.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { LogRing } from '../log/ring-buffer.js';
import { VERSION } from './version.js';

/** The directory of a home's crash reports. */
export function crashReportDir(dataDir: string): string {
  return join(dataDir, 'crash-reports');
}

/** One failure as the report keeps it. */
export interface CrashFailure {
  readonly kind: string;
  readonly name: string;
  readonly message: string;
  readonly stack: string;
  readonly time: string;
}

/** What a crash report file holds. */
export interface CrashReport {
  readonly reason: string;
  readonly time: string;
  readonly versions: { readonly strata: string; readonly node: string; readonly platform: string; readonly arch: string };
  readonly status: Record<string, unknown>;
  readonly failures: readonly CrashFailure[];
  readonly log: { readonly lines: number; readonly from: string | null; readonly to: string | null; readonly entries: readonly string[] };
}

function failureOf(kind: string, error: unknown): CrashFailure {
  const time = new Date().toISOString();
  if (error instanceof Error) return { kind, name: error.name, message: error.message, stack: error.stack ?? `${error.name}: ${error.message}`, time };
  return { kind, name: typeof error, message: String(error), stack: String(error), time };
}

/** A file name for a report written at `time`: sortable, and without ':' (not allowed on every filesystem). */
function reportFileName(time: Date): string {
  return `${time.toISOString().replace(/:/g, '-')}.json`;
}

/** Writes the crash reports of one running node. */
export class CrashReporter {
  readonly #failures: CrashFailure[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly ring: LogRing,
    private readonly status: () => Record<string, unknown>,
  ) {}

  /**
   * Writes a report for `error` and logs where it went; returns its path, or undefined when it
   * could not be written. Never throws: it runs while the node is failing (a read-only or full
   * data directory among the causes), and must not turn a clean stop into a crash.
   */
  record(kind: string, error: unknown, logger: Logger): string | undefined {
    try {
      const path = this.write(kind, error);
      logger.error('crash report written', { path });
      return path;
    } catch (writeError) {
      logger.error('crash report could not be written', { dir: crashReportDir(this.dataDir), error: writeError instanceof Error ? writeError.message : String(writeError) });
      return undefined;
    }
  }

  /** Writes a report for `error` (and every failure recorded before it); returns its path. */
  write(kind: string, error: unknown): string {
    this.#failures.push(failureOf(kind, error));
    const now = new Date();
    let status: Record<string, unknown>;
    try {
      status = this.status();
    } catch (statusError) {
      status = { unavailable: statusError instanceof Error ? statusError.message : String(statusError) };
    }
    const log = this.ring.snapshot();
    const report: CrashReport = {
      reason: kind,
      time: now.toISOString(),
      versions: { strata: VERSION, node: process.version, platform: process.platform, arch: process.arch },
      status,
      failures: [...this.#failures],
      log: {
        lines: log.lines.length,
        from: log.fromMs === undefined ? null : new Date(log.fromMs).toISOString(),
        to: log.toMs === undefined ? null : new Date(log.toMs).toISOString(),
        entries: log.lines,
      },
    };
    const dir = crashReportDir(this.dataDir);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, reportFileName(now));
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o600 });
    return path;
  }
}

/** The crash report files of a home, newest first. */
export function listCrashReports(dataDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(crashReportDir(dataDir));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .reverse()
    .map((name) => join(crashReportDir(dataDir), name));
}

/** Reads one crash report file. */
export function readCrashReport(path: string): CrashReport {
  return JSON.parse(readFileSync(path, 'utf8')) as CrashReport;
}

/**
 * `STRATA_TEST_THROW_AT_HEIGHT`, for tests only: once the node has committed this height it
 * throws from a timer, which nothing catches — the path of a real uncaught exception.
 */
export function testCrashHeight(): number | undefined {
  const text = process.env['STRATA_TEST_THROW_AT_HEIGHT'];
  if (text === undefined || text === '') return undefined;
  const height = Number(text);
  if (!Number.isSafeInteger(height) || height < 1) throw new Error(`STRATA_TEST_THROW_AT_HEIGHT must be a block height (an integer >= 1), got "${text}"`);
  return height;
}

/** Thrown by the test switch STRATA_TEST_THROW_AT_HEIGHT. */
export class TestCrashError extends Error {
  constructor(height: number) {
    super(`STRATA_TEST_THROW_AT_HEIGHT: crashing on purpose after block ${height}`);
    this.name = 'TestCrashError';
  }
}
