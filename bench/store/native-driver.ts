/**
 * Runs the same workloads in the native benchmark driver (build/strata_store_bench): the
 * engine's own limit, without Node-API.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../../src/store/index.js';
import type { WorkloadSize } from './workload.js';
import { BenchError } from './timing.js';

/** Figures the driver prints as JSON (null for phases it did not run). */
export interface NativeFigures {
  loadWritesPerSec: number | null;
  getPerSec: number | null;
  getManyPerSec: number | null;
  ingestWritesPerSec: number | null;
  erc20IngestWritesPerSec: number | null;
  pruneVersionsPerSec: number | null;
  pruneVersionsDeleted: number | null;
}

/** Which phases to run: a fresh store, or reads on a store loaded earlier with the same size. */
export type DriverMode = { only: string[]; reuse: boolean };

/** Path of the driver binary under the repository root. */
export function driverPath(root: string): string {
  return join(root, 'build', 'strata_store_bench');
}

/** Runs the driver on an empty `dir` and returns its figures. */
export async function runNativeDriver(root: string, dir: string, backend: Backend, size: WorkloadSize,
  mode: DriverMode, asyncWriteBuffer = 100): Promise<NativeFigures> {
  const bin = driverPath(root);
  if (!existsSync(bin)) throw new BenchError(`native driver ${bin} is not built; run \`bash scripts/setup.sh\``);
  const args = [
    '--dir', dir, '--layout', backend, '--accounts', String(size.accounts), '--versions', String(size.versions),
    '--reads', String(size.reads), '--batches', String(size.batches), '--blocks', String(size.blocks),
    '--block-txs', String(size.blockTxs), '--seed', String(size.seed), '--async-write-buffer', String(asyncWriteBuffer),
    '--only', mode.only.join(','), ...(mode.reuse ? ['--reuse'] : []),
  ];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new BenchError(`native driver exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout) as NativeFigures;
}
