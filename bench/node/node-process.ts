/**
 * A `stratad` node for the benchmark: a home made by `stratad init` (built CLI in dist) with
 * free loopback ports, the chosen block interval and a mempool large enough for the whole
 * transfer burst, and a started node that is stopped with SIGTERM (SIGKILL if it lingers).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Duration, loadConfig, renderAppToml, renderConfigToml } from '../../src/config/index.js';
import { STRATAD_NODE_FLAGS } from '../../src/cli/node-flags.js';

/** The repository root (this file runs from dist/bench/node). */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STRATAD = join(ROOT, 'dist', 'src', 'cli', 'stratad.js');

/**
 * Ports handed out below Linux's ephemeral range (32768-60999 by default). A port the kernel
 * picked for `listen(0)` and that was released again is soon handed to some process's
 * outgoing connection, and the node then fails to bind it; ports below the range are only
 * ever taken by a listener.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 };
/**
 * Claims on ports across the processes of a test run: a port is checked free, then bound by a
 * node seconds later, and two processes must not both pick it in between. A claim is a file
 * created exclusively; claims older than CLAIM_TTL_MS are stale (their node is long gone).
 */
const CLAIM_DIR = join(tmpdir(), 'strata-port-claims');
const CLAIM_TTL_MS = 10 * 60_000;

/** Binds `port` on 127.0.0.1 and releases it; false when it is taken. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Claims `port` for this process unless another process claimed it recently. */
function claim(port: number): boolean {
  mkdirSync(CLAIM_DIR, { recursive: true });
  const path = join(CLAIM_DIR, String(port));
  try {
    writeFileSync(path, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    try {
      if (Date.now() - statSync(path).mtimeMs < CLAIM_TTL_MS) return false;
      writeFileSync(path, String(process.pid));
      return true;
    } catch {
      return false;
    }
  }
}

/** A free TCP port on 127.0.0.1, chosen at random below the ephemeral range and claimed for this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (claim(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} on 127.0.0.1`);
}

/** What the benchmark's node home looks like. */
export interface NodeHomeOptions {
  /** Development accounts funded at genesis. */
  devAccounts: number;
  /** `timeout_commit`: the pause between blocks. */
  blockMs: number;
  /** Mempool capacity, in txs. */
  mempoolSize: number;
  /** `max-txs-per-sender` at least this, when a workload sends more than the default 80 from one account. */
  maxTxsPerSender?: number;
  /** EVM chain id. */
  evmChainId: number;
}

/** A node home and the EVM HTTP port its config names. */
export interface NodeHome {
  home: string;
  httpPort: number;
  /** Deletes the home. */
  remove: () => void;
}

/** Thrown when `stratad` cannot be initialised or started; the message carries its output. */
export class NodeProcessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeProcessError';
  }
}

/** `stratad init` into a fresh temp home, then loopback ports, block interval and mempool size. */
export async function initNodeHome(options: NodeHomeOptions): Promise<NodeHome> {
  const home = mkdtempSync(join(tmpdir(), 'strata-bench-node-'));
  const remove = () => rmSync(home, { recursive: true, force: true });
  try {
    const init = spawnSync(
      process.execPath,
      [STRATAD, 'init', '--chain-id', 'strata-bench-1', 'bench-node', '--home', home,
        '--dev-accounts', String(options.devAccounts), '--evm-chain-id', String(options.evmChainId)],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    );
    if (init.status !== 0) throw new NodeProcessError(`stratad init failed (${init.status}): ${init.stderr}`);
    const [http, ws, rpc, metrics, p2p] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const config = await loadConfig(home);
    const app = { ...config.app, evm: { ...config.app.evm, httpAddress: '127.0.0.1', httpPort: http, wsPort: ws } };
    const node = {
      ...config.node,
      logLevel: 'warn' as typeof config.node.logLevel,
      rpc: { ...config.node.rpc, laddr: { protocol: 'tcp' as const, host: '127.0.0.1', port: rpc } },
      p2p: { ...config.node.p2p, laddr: { protocol: 'tcp' as const, host: '127.0.0.1', port: p2p } },
      instrumentation: { ...config.node.instrumentation, prometheusListenAddr: { host: '127.0.0.1', port: metrics } },
      consensus: { ...config.node.consensus, timeoutCommit: Duration.fromMilliseconds(options.blockMs) },
      mempool: { ...config.node.mempool, size: options.mempoolSize, maxTxsPerSender: Math.max(config.node.mempool.maxTxsPerSender, options.maxTxsPerSender ?? 0) },
    };
    writeFileSync(join(home, 'config', 'app.toml'), renderAppToml(app));
    writeFileSync(join(home, 'config', 'config.toml'), renderConfigToml(node));
    return { home, httpPort: http, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Rewrites the genesis block gas limit of a home not yet started (a workload the default 30M would cap). */
export function setBlockGasLimit(home: NodeHome, gasLimit: number): void {
  const path = join(home.home, 'config', 'genesis.json');
  const genesis = JSON.parse(readFileSync(path, 'utf8')) as { params?: Record<string, unknown> };
  genesis.params = { ...genesis.params, block_gas_limit: gasLimit };
  writeFileSync(path, `${JSON.stringify(genesis, null, 2)}\n`);
}

/** Rewrites the home's block interval (`timeout_commit`); takes effect at the next start. */
export async function setBlockInterval(home: NodeHome, blockMs: number): Promise<void> {
  const config = await loadConfig(home.home);
  const node = { ...config.node, consensus: { ...config.node.consensus, timeoutCommit: Duration.fromMilliseconds(blockMs) } };
  writeFileSync(join(home.home, 'config', 'config.toml'), renderConfigToml(node));
}

/** Rewrites the home's `[evm] execution-workers` (0 = cores − 1); takes effect at the next start. */
export async function setExecutionWorkers(home: NodeHome, workers: number): Promise<void> {
  const config = await loadConfig(home.home);
  const app = { ...config.app, evm: { ...config.app.evm, executionWorkers: workers } };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml(app));
}

/**
 * The extra Node.js flags a benchmark's `--node-args="…"` (split on spaces; given with `=`
 * because the value starts with a dash) and `--cpu-prof DIR` (a V8 CPU profile of every
 * thread, written into DIR when the node stops) ask for.
 */
export function benchNodeArgs(nodeArgs: string, cpuProfDir: string | undefined): string[] {
  return [...nodeArgs.split(' ').filter(Boolean), ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])];
}

/** A running benchmark process (node or Anvil). */
export interface RunningProcess {
  readonly pid: number;
  readonly port: number;
  /** Its stdout and stderr so far (the tail, for error messages). */
  output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Idempotent. */
  stop: (graceMs?: number) => Promise<void>;
}

/** Wraps a child process: output capture and a stop that always ends it. */
export function supervise(child: ChildProcess, port: number): RunningProcess {
  let output = '';
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const stop = async (graceMs = 15_000): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    }
  };
  return { pid: child.pid ?? 0, port, output: () => output, stop };
}

/**
 * Resolves once `port` answers `eth_blockNumber` (asked every `pollMs`), or throws if the
 * process exits first or after `timeoutMs`.
 */
export async function waitForRpc(child: ChildProcess, port: number, output: () => string, timeoutMs = 60_000, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new NodeProcessError(`process exited early (${child.exitCode}): ${output()}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
      });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(pollMs);
  }
  throw new NodeProcessError(`no JSON-RPC answer on port ${port} after ${timeoutMs} ms: ${output()}`);
}

/**
 * Starts `stratad start --home` with stratad's runtime flags and waits until its EVM RPC
 * answers (asked every `pollMs`). `nodeArgs` go to the Node.js runtime too (e.g. `--cpu-prof`).
 */
export async function startNode(home: NodeHome, nodeArgs: readonly string[] = [], pollMs?: number): Promise<RunningProcess> {
  const child = spawn(process.execPath, [...STRATAD_NODE_FLAGS, ...nodeArgs, STRATAD, 'start', '--home', home.home], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = supervise(child, home.httpPort);
  try {
    await waitForRpc(child, home.httpPort, running.output, undefined, pollMs);
  } catch (error) {
    await running.stop(2_000);
    throw error;
  }
  return running;
}
