/**
 * Re-running a trace whose JavaScript tracers read state they had not loaded: their `db`
 * answers synchronously from state loaded before each step, so a read outside it fails and
 * joins the preload; the next run loads it first.
 */
import { StatePreload } from '../js/index.js';

/** Runs of one trace at most while its JavaScript tracers keep reading state not yet loaded. */
export const MAX_STATE_RUNS = 4;

/**
 * The outcome of `run`, run again while a run missed state: each run loads what earlier runs
 * missed, so a request ends with every read answered — or, after MAX_STATE_RUNS, with the
 * error or answer the last run gave.
 */
export async function withStatePreload<T>(run: (preload: StatePreload) => Promise<T>): Promise<T> {
  const preload = new StatePreload();
  for (let attempt = 1; ; attempt++) {
    const missed = preload.revision;
    let result: T;
    try {
      result = await run(preload);
    } catch (error) {
      if (preload.revision === missed || attempt >= MAX_STATE_RUNS) throw error;
      continue;
    }
    // A tracer may have caught the failed read itself; its answer is then incomplete.
    if (preload.revision === missed || attempt >= MAX_STATE_RUNS) return result;
  }
}
