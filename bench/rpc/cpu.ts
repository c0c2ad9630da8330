/**
 * Foreign CPU: how much of the machine processes other than the benchmark's own used, from
 * /proc (Linux). The benchmark waits for a quiet machine before each run and reports what
 * foreign load each run saw, because a load generator and a server on 2 shared cores are
 * easily disturbed by anything else running.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A snapshot of machine and own-process CPU time, in clock ticks. */
export interface CpuSnapshot {
  readonly machineBusy: number;
  readonly machineTotal: number;
  readonly own: number;
}

/** True where /proc/stat exists (Linux); elsewhere foreign CPU reads as 0. */
export const CPU_ACCOUNTING = (() => {
  try {
    readFileSync('/proc/stat');
    return true;
  } catch {
    return false;
  }
})();

/** Busy and total ticks over all cores. Interrupt time counts as ours: loopback traffic is. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0] = fields;
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: user + nice + system, total };
}

/** User + system ticks of one process (all its threads); 0 once it is gone. */
export function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

/** Takes a snapshot, counting `pids` (and this process) as the benchmark's own. */
export function cpuSnapshot(pids: readonly number[]): CpuSnapshot {
  if (!CPU_ACCOUNTING) return { machineBusy: 0, machineTotal: 1, own: 0 };
  const machine = machineTicks();
  let own = processTicks(process.pid);
  for (const pid of pids) own += processTicks(pid);
  return { machineBusy: machine.busy, machineTotal: machine.total, own };
}

/** Percent of the whole machine (all cores) used by other processes between two snapshots. */
export function foreignCpuPercent(before: CpuSnapshot, after: CpuSnapshot): number {
  const total = after.machineTotal - before.machineTotal;
  if (total <= 0) return 0;
  const foreign = after.machineBusy - before.machineBusy - (after.own - before.own);
  return Math.max(0, (foreign / total) * 100);
}

/**
 * Waits until other processes use under `maxPercent` of the machine over a 2 s window, for at
 * most `maxWaitMs`. Resolves with the last window's foreign CPU.
 */
export async function waitForQuietMachine(maxPercent: number, maxWaitMs: number, pids: readonly number[] = []): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const before = cpuSnapshot(pids);
    await sleep(2000);
    const foreign = foreignCpuPercent(before, cpuSnapshot(pids));
    if (foreign < maxPercent || Date.now() >= deadline) return foreign;
  }
}
