/**
 * What bench:node says about its rounds: per figure the mean over the rounds and their spread,
 * and the CPU each side used during a run — the node, Anvil and the load generator (this
 * process, which submits and reads) — so a co-located figure shows who had the cores.
 */
import { performance } from 'node:perf_hooks';
import { CPU_ACCOUNTING, processTicks } from '../rpc/cpu.js';

/** Mean and spread of one figure over the rounds. */
export interface RoundStats {
  rounds: number;
  mean: number;
  min: number;
  max: number;
  /** Population standard deviation (0 for one round). */
  stddev: number;
}

/** Mean, min, max and standard deviation of `values`, or null when there are none. */
export function roundStats(values: readonly number[]): RoundStats | null {
  if (values.length === 0) return null;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
  return { rounds: values.length, mean, min: Math.min(...values), max: Math.max(...values), stddev: Math.sqrt(variance) };
}

/** The round whose `key` is the median (the upper one of an even count), or undefined when there are none. */
export function medianBy<T>(runs: readonly T[], key: (run: T) => number): T | undefined {
  if (runs.length === 0) return undefined;
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)];
}

/** CPU of each side during one run, in percent of one core (200 = both cores of a 2-core machine). */
export interface SideCpu {
  nodeCpuPercent: number;
  anvilCpuPercent: number;
  loadGenCpuPercent: number;
  wallSeconds: number;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** A running CPU measurement of the node, Anvil and this process. */
export interface SideCpuMeter {
  /** Ends the measurement. */
  stop(): SideCpu;
}

/** Starts measuring the CPU of `nodePid`, `anvilPid` and this process (the load generator). */
export function startSideCpu(nodePid: number, anvilPid: number): SideCpuMeter {
  const t0 = performance.now();
  const own0 = process.cpuUsage();
  const node0 = processTicks(nodePid);
  const anvil0 = processTicks(anvilPid);
  return {
    stop() {
      const seconds = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(own0);
      const percent = (cpuSeconds: number) => (seconds > 0 ? (cpuSeconds / seconds) * 100 : 0);
      return {
        nodeCpuPercent: CPU_ACCOUNTING ? percent((processTicks(nodePid) - node0) / USER_HZ) : 0,
        anvilCpuPercent: CPU_ACCOUNTING ? percent((processTicks(anvilPid) - anvil0) / USER_HZ) : 0,
        loadGenCpuPercent: percent((own.user + own.system) / 1e6),
        wallSeconds: seconds,
      };
    },
  };
}

/** The mean of each side's CPU over several runs, or null when there are none. */
export function meanSideCpu(runs: readonly SideCpu[]): SideCpu | null {
  if (runs.length === 0) return null;
  const mean = (key: keyof SideCpu) => runs.reduce((s, r) => s + r[key], 0) / runs.length;
  return { nodeCpuPercent: mean('nodeCpuPercent'), anvilCpuPercent: mean('anvilCpuPercent'), loadGenCpuPercent: mean('loadGenCpuPercent'), wallSeconds: mean('wallSeconds') };
}
