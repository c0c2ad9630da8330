/**
 * Time spent recovering transaction senders on this thread, summed. Admission reads it before
 * and after checking one transaction to split that transaction's time into sender recovery and
 * the rest, without the recovery code having to return or allocate anything for it.
 */
export const recoveryClock = {
  /** Seconds spent in sender recovery so far. */
  seconds: 0,
};

/** Runs `recover` and adds the time it took, thrown or not, to recoveryClock. */
export function timeRecovery<T>(recover: () => T): T {
  const started = performance.now();
  try {
    return recover();
  } finally {
    recoveryClock.seconds += (performance.now() - started) / 1000;
  }
}
