/**
 * What a request costs the node's threads: the RPC (main) thread's and the call workers' CPU
 * time, and the time each waited for a CPU, read from the node's `/metrics` before and after
 * a load run and divided by the requests it answered. It tells a request's cost on the
 * execution workers from its cost on the thread that parses and answers it, and shows whether
 * the workers were short of cores (waiting) rather than of work.
 */
import { scrapeMetrics, type MetricSample } from '../metrics-text.js';

/** Microseconds per request, by thread. */
export interface ThreadCostPerRequest {
  rpcThreadCpuUs: number;
  rpcThreadWaitUs: number;
  callWorkersCpuUs: number;
  callWorkersWaitUs: number;
}

/** The node's running thread-time totals, seconds. */
export interface ThreadTotals {
  mainCpu: number;
  mainWait: number;
  callCpu: number;
  callWait: number;
}

function sampleOf(samples: readonly MetricSample[], name: string, pool?: string): number {
  const sample = samples.find((s) => s.name === name && (pool === undefined || s.labels['pool'] === pool));
  if (sample === undefined) throw new Error(`the node's /metrics has no ${name}${pool ? ` for pool ${pool}` : ''}`);
  return sample.value;
}

/** Reads the totals from the node whose metrics listener is on 127.0.0.1:`port`. */
export async function threadTotals(port: number): Promise<ThreadTotals> {
  const samples = await scrapeMetrics(port);
  return {
    mainCpu: sampleOf(samples, 'strata_main_thread_cpu_seconds_total'),
    mainWait: sampleOf(samples, 'strata_main_thread_cpu_wait_seconds_total'),
    callCpu: sampleOf(samples, 'strata_execution_worker_cpu_seconds_total', 'calls'),
    callWait: sampleOf(samples, 'strata_execution_worker_cpu_wait_seconds_total', 'calls'),
  };
}

/** The time between two readings per request answered in between. */
export function costPerRequest(before: ThreadTotals, after: ThreadTotals, requests: number): ThreadCostPerRequest {
  const us = (key: keyof ThreadTotals) => (requests > 0 ? ((after[key] - before[key]) / requests) * 1e6 : 0);
  return { rpcThreadCpuUs: us('mainCpu'), rpcThreadWaitUs: us('mainWait'), callWorkersCpuUs: us('callCpu'), callWorkersWaitUs: us('callWait') };
}

/** The mean per thread over runs, or null without runs. */
export function meanThreadCost(costs: readonly ThreadCostPerRequest[]): ThreadCostPerRequest | null {
  if (costs.length === 0) return null;
  const mean = (key: keyof ThreadCostPerRequest) => costs.reduce((sum, c) => sum + c[key], 0) / costs.length;
  return { rpcThreadCpuUs: mean('rpcThreadCpuUs'), rpcThreadWaitUs: mean('rpcThreadWaitUs'), callWorkersCpuUs: mean('callWorkersCpuUs'), callWorkersWaitUs: mean('callWorkersWaitUs') };
}

/** One line: each thread's CPU time and wait per request. */
export function threadCostText(cost: ThreadCostPerRequest): string {
  const us = (n: number) => `${n.toFixed(0)} µs`;
  return `RPC thread ${us(cost.rpcThreadCpuUs)} CPU (+${us(cost.rpcThreadWaitUs)} waiting for a CPU), call workers ${us(cost.callWorkersCpuUs)} CPU (+${us(cost.callWorkersWaitUs)} waiting)`;
}
