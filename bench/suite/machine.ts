/**
 * Facts about the machine a benchmark run measured: what an operator needs to compare a report
 * with one from another machine or release.
 */
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';

/** The machine and build a run measured. */
export interface MachineFacts {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  /** 1-minute load average when the run started: a loaded machine makes figures incomparable. */
  loadAverage1m: number;
  freeMemoryGiB: number;
  node: string;
  rocksdb: string;
  os: string;
  commit: string;
  /** Whether the worktree had uncommitted changes. */
  dirty: boolean;
}

function run(command: string, args: readonly string[], cwd: string): string | null {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return null;
  }
}

/**
 * The RocksDB the native addon is linked against, from the shared library's versioned file
 * name (e.g. librocksdb.so.7.8.3).
 */
function rocksdbVersion(root: string): string {
  const ldd = run('ldd', [join(root, 'build', 'Release', 'strata_native.node')], root);
  const match = ldd ? /librocksdb\.so[^\s]*\s+=>\s+(\S+)/.exec(ldd) : null;
  if (!match) return 'unknown';
  try {
    const file = realpathSync(match[1]!);
    return /librocksdb\.so\.([\d.]+)$/.exec(file)?.[1] ?? file;
  } catch {
    return match[1]!;
  }
}

/** The short commit the run measured (`git rev-parse --short HEAD` in `root`). */
export function shortCommit(root: string): string {
  return run('git', ['rev-parse', '--short', 'HEAD'], root) ?? 'unknown';
}

/** Collects the facts; `root` is the repository the run measured. */
export function machineFacts(root: string): MachineFacts {
  const cpuList = cpus();
  const gib = (bytes: number) => Math.round((bytes / 2 ** 30) * 10) / 10;
  const status = run('git', ['status', '--porcelain', '--untracked-files=no'], root);
  return {
    cores: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    memoryGiB: gib(totalmem()),
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
    freeMemoryGiB: gib(freemem()),
    node: process.version,
    rocksdb: rocksdbVersion(root),
    os: `${osType()} ${release()}`,
    commit: shortCommit(root),
    dirty: status !== null && status.length > 0,
  };
}
