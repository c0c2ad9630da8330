/**
 * Test switch, read only by the state-sync kill -9 test (test/statesync/): with
 * STRATA_TEST_STATESYNC_CRASH_AT=chunk@<index> the process SIGKILLs itself once that snapshot
 * chunk is written, with =before-commit once the stores and the block are imported but before
 * the restore is marked complete — the two windows where a half-done import sits on disk.
 */

/** The points of a state sync a test can kill the process at. */
export type StateSyncCrashPoint = { at: 'chunk'; index: number } | { at: 'before-commit' };

const HOOK = ((): StateSyncCrashPoint | undefined => {
  const value = process.env.STRATA_TEST_STATESYNC_CRASH_AT;
  if (!value) return undefined;
  if (value === 'before-commit') return { at: 'before-commit' };
  const match = /^chunk@(\d+)$/.exec(value);
  if (!match) throw new Error(`STRATA_TEST_STATESYNC_CRASH_AT must be chunk@<index> or before-commit, got "${value}"`);
  return { at: 'chunk', index: Number(match[1]) };
})();

/** Kills this process when the test switch names this point. */
export function stateSyncCrashPoint(point: StateSyncCrashPoint): void {
  if (!HOOK || HOOK.at !== point.at) return;
  if (HOOK.at === 'chunk' && point.at === 'chunk' && HOOK.index !== point.index) return;
  process.kill(process.pid, 'SIGKILL');
}
