/**
 * Homes and commands for the migration tests: a running validator and a stopped RPC node with
 * history, copies of that home to refuse on, a byte-level picture of a home, and
 * `stratad migrate evm-ss-split` run as a real process.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { loadConfig, renderAppToml, type AppConfig } from '../../src/config/index.js';
import { ROOT, type RunningNode, type TestHome } from '../node/fixtures/node-process.js';
import { followerHome, heightOf, validatorHome, waitUntil, type NetHome } from '../sync/fixtures/network.js';

const STRATAD = join(ROOT, 'src', 'cli', 'stratad.ts');

/** Every file and directory of a home: path → "dir", or the mode and sha256 of the file's bytes. */
export function homePicture(home: string): Record<string, string> {
  const picture: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const key = relative(home, path);
      if (stat.isDirectory()) {
        picture[key] = 'dir';
        walk(path);
      } else {
        picture[key] = `${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
      }
    }
  };
  walk(home);
  return picture;
}

/** How long a node may take to serve RPC on a loaded machine. */
const START_TIMEOUT_MS = 180_000;

/** Starts `stratad start --home` and waits (up to START_TIMEOUT_MS) until its EVM RPC answers; killed at teardown. */
export async function startNode(t: Test, home: TestHome): Promise<RunningNode> {
  const child = spawn(process.execPath, ['--import', 'tsx', STRATAD, 'start', '--home', home.home], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const exited = ended.then((e) => e.code);
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  await waitUntil(
    `stratad on ${home.home} to serve RPC`,
    async () => {
      if (child.exitCode !== null) throw new Error(`stratad exited early (${child.exitCode}): ${output}`);
      return (await evmCall(home.http, 'eth_blockNumber', []).catch(() => undefined))?.result !== undefined;
    },
    START_TIMEOUT_MS,
  );
  return { child, output: () => output, stop, ended };
}

/** Blocks between the validator's state-sync snapshots. */
export const SNAPSHOT_INTERVAL = 5;

/** A validator producing blocks (snapshots every 5 blocks) and its consensus RPC URL. */
export interface Network {
  validator: NetHome;
  validatorNode: RunningNode;
  rpcUrl: string;
}

/** Writes `change(app)` as the home's app.toml. */
export async function editApp(home: string, change: (app: AppConfig) => AppConfig): Promise<void> {
  const config = await loadConfig(home);
  writeFileSync(join(home, 'config', 'app.toml'), renderAppToml(change(config.app)));
}

/** Starts a validator that writes a snapshot every 5 blocks. */
export async function startValidator(t: Test): Promise<Network> {
  const validator = await validatorHome(t, 250);
  await editApp(validator.home, (app) => ({ ...app, stateSync: { ...app.stateSync, snapshotInterval: SNAPSHOT_INTERVAL } }));
  const validatorNode = await startNode(t, validator);
  return { validator, validatorNode, rpcUrl: `http://127.0.0.1:${validator.rpc}` };
}

/** An RPC node that has followed the validator to at least `height`, then stopped. */
export async function stoppedRpcNode(t: Test, net: Network, height: number): Promise<NetHome> {
  const home = await followerHome(t, net.validator);
  const node = await startNode(t, home);
  await waitUntil(`the RPC node at height ${height}`, async () => (await heightOf(home)) >= height, 300_000);
  t.equal(await node.stop(), 0, 'the RPC node stops cleanly');
  return home;
}

/** A copy of `home` (a running node's too) in a new temp directory, removed at teardown. */
export function copyHome(t: Test, home: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'strata-migrate-'));
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  // A running node's home can lose a file (its proposal log) mid-copy: copy again then.
  for (let attempt = 1; ; attempt++) {
    try {
      cpSync(home, copy, { recursive: true, force: true });
      return copy;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 10) throw error;
    }
  }
}

/** The outcome of a `stratad` process. */
export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `stratad <args>` to its end (stdin not a terminal), killing it after `timeoutMs`. */
export async function runStratad(args: readonly string[], timeoutMs = 240_000): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', STRATAD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  return { status, stdout, stderr };
}

/** Whether the process `pid` still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of the node a successful migration started (from its output), killed at teardown if still running. */
export function startedPid(t: Test, run: Run): number {
  const match = /pid (\d+)/.exec(run.stdout);
  if (match?.[1] === undefined) throw new Error(`no pid in the migration's output:\n${run.stdout}\n${run.stderr}`);
  const pid = Number(match[1]);
  t.teardown(async () => {
    if (!alive(pid)) return;
    process.kill(pid, 'SIGKILL');
    await waitUntil('the started node to end', () => !alive(pid), 30_000).catch(() => undefined);
  });
  return pid;
}

/** SIGTERM to a node started by the migration, and wait until it is gone. */
export async function stopPid(pid: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  await waitUntil(`pid ${pid} to stop`, () => !alive(pid), 60_000);
  await sleep(100);
}

/** A JSON-RPC call to a node's EVM RPC. */
export async function evmCall(http: number, method: string, params: unknown[]): Promise<{ result?: unknown; error?: { message: string } }> {
  const r = await fetch(`http://127.0.0.1:${http}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { message: string } };
}
