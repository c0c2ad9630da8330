/**
 * The migration's last step (spec "Migration procedure", steps 5 and 6): start the node in the
 * background with its output in a log file, then wait for the three startup log lines that
 * confirm the split and for `debug_traceBlockByNumber("latest", {})` to answer a result on the
 * node's EVM JSON-RPC, the check that reads are served from the EVM SS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import type { EvmRpcConfig } from '../../config/index.js';

/** The startup log lines of a split node (spec "Startup log lines confirming the split"), as the state store writes them. */
export const SPLIT_STARTUP_LINES: readonly string[] = ['StrataDB SS is enabled', 'StrataDB EVM StateStore optimization is enabled', 'EVM state store enabled'];

/** How this program is run again as `stratad start`: the executable and the arguments before the command. */
export interface NodeLauncher {
  readonly command: string;
  readonly args: readonly string[];
}

/** A node started in the background. */
export interface BackgroundNode {
  readonly pid: number;
  readonly logFile: string;
  /** Set once the process has ended. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly child: ChildProcess;
}

/** The URL of the node's HTTP JSON-RPC as a client on this machine reaches it. */
export function evmRpcUrl(evm: EvmRpcConfig): string {
  const host = evm.httpAddress === '' || evm.httpAddress === '0.0.0.0' ? '127.0.0.1' : evm.httpAddress === '::' ? '[::1]' : evm.httpAddress;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${evm.httpPort}`;
}

/** Starts `stratad start --home <home>` detached from this process, its output appended to `logFile`. */
export function startInBackground(launcher: NodeLauncher, home: string, logFile: string): BackgroundNode {
  const fd = openSync(logFile, 'a', 0o600);
  try {
    const child = spawn(launcher.command, [...launcher.args, 'start', '--home', home], { detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`could not start ${launcher.command}`);
    const node: BackgroundNode = { pid: child.pid, logFile, exit: undefined, child };
    child.on('exit', (code, signal) => (node.exit = { code, signal }));
    // The node outlives this command: it must not hold the command's event loop open.
    child.unref();
    return node;
  } finally {
    closeSync(fd);
  }
}

function readLog(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8');
  } catch {
    return '';
  }
}

/** The last `n` lines of the log, for a failure message. */
export function logTail(logFile: string, n = 15): string {
  return readLog(logFile).trimEnd().split('\n').slice(-n).join('\n');
}

/** What the trace check answered: a result, or why not. */
async function traceLatest(url: string): Promise<{ ok: true } | { ok: false; why: string }> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceBlockByNumber', params: ['latest', {}] }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
    if (body.error !== undefined) return { ok: false, why: `debug_traceBlockByNumber answered an error: ${body.error.message ?? JSON.stringify(body.error)}` };
    return 'result' in body ? { ok: true } : { ok: false, why: 'debug_traceBlockByNumber answered without a result' };
  } catch (error) {
    return { ok: false, why: `the EVM JSON-RPC at ${url} does not answer yet (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Progress of the wait, for the operator. */
export type ReadyProgress = (event: 'line' | 'trace', detail: string) => void;

/**
 * Waits until the log holds the three startup lines and the trace check answers a result.
 * Throws when the node exits first or `timeoutMs` passes, with the end of its log.
 */
export async function waitForReady(node: BackgroundNode, url: string, timeoutMs: number, progress: ReadyProgress): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  let lastWhy = 'not checked yet';
  for (;;) {
    const log = readLog(node.logFile);
    for (const line of SPLIT_STARTUP_LINES) {
      if (!seen.has(line) && log.includes(line)) {
        seen.add(line);
        progress('line', line);
      }
    }
    if (seen.size === SPLIT_STARTUP_LINES.length) {
      const trace = await traceLatest(url);
      if (trace.ok) {
        progress('trace', `debug_traceBlockByNumber("latest", {}) answered a result at ${url}`);
        return;
      }
      lastWhy = trace.why;
    }
    if (node.exit !== undefined) {
      throw new Error(`the node (pid ${node.pid}) exited with ${node.exit.code ?? node.exit.signal} before it was ready; the end of ${node.logFile}:\n${logTail(node.logFile)}`);
    }
    if (Date.now() > deadline) {
      const missing = SPLIT_STARTUP_LINES.filter((line) => !seen.has(line));
      const why = missing.length > 0 ? `the log lacks ${missing.map((l) => `"${l}"`).join(', ')}` : lastWhy;
      throw new Error(`the node (pid ${node.pid}) was not ready after ${timeoutMs / 1000} s: ${why}; the end of ${node.logFile}:\n${logTail(node.logFile)}`);
    }
    await sleep(500);
  }
}
