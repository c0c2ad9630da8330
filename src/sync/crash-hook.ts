/**
 * Test hook, read only by the follower kill -9 test (test/sync/late-join.test.ts):
 * STRATA_TEST_SYNC_CRASH_AT=<step>@<height> makes a follower SIGKILL itself right after that
 * step of applying that block, so the window between executing a block and storing it can be
 * crashed on purpose.
 */

/**
 * The steps of applying a block a test can kill the process after: the state committed and
 * the block not written; the block written while the state commits (the commit may or may not
 * have finished); both done and the block published.
 */
export const APPLY_STEPS = ['after-execute', 'after-block-write', 'after-store'] as const;

/** One step of applying a block. */
export type ApplyStep = (typeof APPLY_STEPS)[number];

const HOOK = ((): { step: ApplyStep; height: number } | undefined => {
  const value = process.env.STRATA_TEST_SYNC_CRASH_AT;
  if (!value) return undefined;
  const [step, height] = value.split('@');
  if (!APPLY_STEPS.includes(step as ApplyStep) || !Number.isSafeInteger(Number(height))) {
    throw new Error(`STRATA_TEST_SYNC_CRASH_AT must be <${APPLY_STEPS.join('|')}>@<height>, got "${value}"`);
  }
  return { step: step as ApplyStep, height: Number(height) };
})();

/** Whether the hook names this step of this height (for a step that must first wait for it). */
export function syncCrashArmed(step: ApplyStep, height: number): boolean {
  return HOOK !== undefined && HOOK.step === step && HOOK.height === height;
}

/** Kills this process when the hook names this step of this height. */
export function syncCrashPoint(step: ApplyStep, height: number): void {
  if (syncCrashArmed(step, height)) process.kill(process.pid, 'SIGKILL');
}
