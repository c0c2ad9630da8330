/**
 * CPU time of single threads of this process, from Linux's scheduler statistics
 * (`/proc/…/schedstat`: nanoseconds on a CPU, nanoseconds runnable but waiting for one).
 * Process-wide figures cannot tell the RPC thread from the execution workers, and the time a
 * thread waited for a CPU says whether it was short of cores rather than of work.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** What one thread has used of the CPUs since it started. */
export interface ThreadCpu {
  /** Seconds it ran on a CPU. */
  readonly runSeconds: number;
  /** Seconds it was ready to run but waited for a CPU. */
  readonly waitSeconds: number;
}

/** No time: what a sum starts from, and what a platform without /proc reports. */
export const NO_THREAD_CPU: ThreadCpu = { runSeconds: 0, waitSeconds: 0 };

/** The Linux thread id of the calling thread, or undefined where /proc has none. */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time of thread `tid` of this process (the calling thread when omitted), or undefined
 * when it cannot be read: not Linux, or the thread has ended.
 */
export function threadCpu(tid?: number): ThreadCpu | undefined {
  try {
    const [run, wait] = readFileSync(tid === undefined ? '/proc/thread-self/schedstat' : `/proc/self/task/${tid}/schedstat`, 'latin1').split(' ');
    const runNs = Number(run);
    const waitNs = Number(wait);
    return Number.isFinite(runNs) && Number.isFinite(waitNs) ? { runSeconds: runNs / 1e9, waitSeconds: waitNs / 1e9 } : undefined;
  } catch {
    return undefined;
  }
}

/** `a` + `b`. */
export function addThreadCpu(a: ThreadCpu, b: ThreadCpu): ThreadCpu {
  return { runSeconds: a.runSeconds + b.runSeconds, waitSeconds: a.waitSeconds + b.waitSeconds };
}
