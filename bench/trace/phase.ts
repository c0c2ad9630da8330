/**
 * One timed tracing phase: every transaction of the workload traced once, one request at a time,
 * with one tracer configuration, against one server. Per-transaction latency (p50/p99), the
 * phase's transactions per second, and the server's peak resident memory during the phase
 * (VmHWM of /proc/<pid>/status, reset through /proc/<pid>/clear_refs before the phase).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { RpcClient } from '../node/rpc-client.js';

/** What one phase measured. */
export interface PhaseResult {
  traces: number;
  txPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Peak RSS of the server during the phase, MiB (null when /proc cannot tell). */
  peakRssMiB: number | null;
  /** Whether the peak was reset before the phase (else it is the process's lifetime peak). */
  peakResetOk: boolean;
  errors: number;
  firstError: string;
}

/** The `p` quantile (0..1) of sorted `values`, nearest rank. */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** VmHWM of `pid`, MiB, or null when the process or the field is not there. */
export function peakRssMiB(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resets the peak RSS of `pid` to its current RSS (Linux clear_refs 5); false if not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Traces `hashes` in order with `config` after `warmup` untimed traces, and measures. */
export async function runTracePhase(pid: number, port: number, hashes: readonly string[], config: object, warmup: number): Promise<PhaseResult> {
  const client = new RpcClient(port, 1);
  try {
    for (const hash of hashes.slice(0, warmup)) await client.call('debug_traceTransaction', [hash, config]).catch(() => undefined);
    const peakResetOk = resetPeakRss(pid);
    const latencies: number[] = [];
    let errors = 0;
    let firstError = '';
    const started = performance.now();
    for (const hash of hashes) {
      const t0 = performance.now();
      try {
        await client.call('debug_traceTransaction', [hash, config]);
      } catch (error) {
        errors++;
        firstError ||= error instanceof Error ? error.message : String(error);
      }
      latencies.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      traces: hashes.length,
      txPerSec: hashes.length / seconds,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      peakRssMiB: peakRssMiB(pid),
      peakResetOk,
      errors,
      firstError,
    };
  } finally {
    client.close();
  }
}
