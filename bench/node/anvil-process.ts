/**
 * Anvil for the benchmark: the npm package's binary started directly (not through `npx`, so
 * that stopping it stops the process that serves), on a free loopback port with interval mining,
 * the given chain id and block gas limit.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { NodeProcessError, freePort, supervise, waitForRpc, type RunningProcess } from './node-process.js';

/** How Anvil is run. */
export interface AnvilOptions {
  /** Interval mining period, in seconds. */
  blockSeconds: number;
  chainId: number;
  gasLimit: number;
}

/** Path of the platform binary the `@foundry-rs/anvil` package installed. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`);
  const binary = join(dirname(pkg), 'bin', 'anvil');
  if (!existsSync(binary)) throw new NodeProcessError(`the Anvil binary is missing at ${binary}; reinstall @foundry-rs/anvil`);
  return binary;
}

/** Starts Anvil and waits until it answers JSON-RPC. Its per-request log goes to /dev/null. */
export function startAnvil(options: AnvilOptions): Promise<RunningProcess> {
  return launchAnvil(['--chain-id', String(options.chainId), '--block-time', String(options.blockSeconds), '--gas-limit', String(options.gasLimit)]);
}

/**
 * Starts Anvil with `args` on a free loopback port and waits until it answers JSON-RPC (or
 * stops it and throws). Its per-request log goes to /dev/null.
 */
export async function launchAnvil(args: readonly string[]): Promise<RunningProcess> {
  const port = await freePort();
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const running = supervise(child, port);
  try {
    await waitForRpc(child, port, running.output);
  } catch (error) {
    await running.stop(2_000);
    throw error;
  }
  return running;
}
