/**
 * A real `stratad` serving an imported Ethereum chain: `stratad debug import-eth-chain` into a
 * fresh temp home, loopback ports that are free, `stratad start`, and a stop that sends
 * SIGTERM to that process only and removes the home.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { freePort } from '../../bench/node/node-process.js';
import { loadConfig, renderAppToml, renderConfigToml } from '../../src/config/index.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STRATAD = join(ROOT, 'src', 'cli', 'stratad.ts');

/** A running node over an imported chain. */
export interface ImportedNode {
  home: string;
  /** The EVM JSON-RPC HTTP port on 127.0.0.1. */
  http: number;
  /** What `import-eth-chain` printed. */
  importOutput: string;
  /** The node's log so far. */
  output: () => string;
  /** Stops the node (SIGTERM, then waits) and removes the home. */
  stop: () => Promise<void>;
}

/** Imports `genesis` + `chain` into a temp home and starts a node on it. */
export async function startImportedNode(genesis: string, chain: string): Promise<ImportedNode> {
  const home = mkdtempSync(join(tmpdir(), 'strata-eth-import-'));
  const imported = spawnSync(process.execPath, ['--import', 'tsx', STRATAD, 'debug', 'import-eth-chain', '--genesis', genesis, '--chain', chain, '--home', home], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (imported.status !== 0) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(`stratad debug import-eth-chain failed (${imported.status}): ${imported.stderr}`);
  }
  const [http, ws, rpc, metrics, p2p] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const config = await loadConfig(home);
  writeFileSync(join(home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm: { ...config.app.evm, httpAddress: '127.0.0.1', httpPort: http, wsPort: ws } }));
  writeFileSync(
    join(home, 'config', 'config.toml'),
    renderConfigToml({
      ...config.node,
      rpc: { ...config.node.rpc, laddr: { protocol: 'tcp' as const, host: '127.0.0.1', port: rpc } },
      p2p: { ...config.node.p2p, laddr: { protocol: 'tcp' as const, host: '127.0.0.1', port: p2p } },
      instrumentation: { ...config.node.instrumentation, prometheusListenAddr: { host: '127.0.0.1', port: metrics } },
    }),
  );

  const child = spawn(process.execPath, ['--import', 'tsx', STRATAD, 'start', '--home', home], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => false), sleep(20_000, undefined, { ref: false }).then(() => true)]);
      if (killed) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(home, { recursive: true, force: true });
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`stratad exited early (${child.exitCode}): ${output}`);
    }
    try {
      const r = await fetch(`http://127.0.0.1:${http}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}',
      });
      if (r.ok) return { home, http, importOutput: imported.stdout, output: () => output, stop };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`stratad did not start serving: ${output}`);
}
