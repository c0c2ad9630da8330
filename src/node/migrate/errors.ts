/**
 * The two ways `stratad migrate evm-ss-split` stops: a refused check (nothing on disk was
 * touched) and a failed step (the home is part-way; the error says where and what next).
 */

/** A check refused the migration before anything was written; `fix` says what to do. */
export class MigrationRefusedError extends Error {
  /** Short name of the check that refused. */
  readonly check: string;
  /** Why the home cannot be migrated. */
  readonly reason: string;
  /** What the operator does about it. */
  readonly fix: string;
  constructor(check: string, reason: string, fix: string) {
    super(`migration refused (${check}): ${reason}. Fix: ${fix}. Nothing in the home was changed.`);
    this.name = 'MigrationRefusedError';
    this.check = check;
    this.reason = reason;
    this.fix = fix;
  }
}

/** A step failed after the home started changing; the message says its state and the way on or back. */
export class MigrationStepError extends Error {
  /** The step that failed, as numbered in the printed plan. */
  readonly step: number;
  constructor(step: number, stepName: string, cause: unknown, homeState: string, next: string) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`migration failed at step ${step} (${stepName}): ${reason}\nState of the home: ${homeState}\nWhat next: ${next}`, { cause });
    this.name = 'MigrationStepError';
    this.step = step;
  }
}

/** The trusted node's consensus RPC did not answer as needed. */
export class TrustedRpcError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrustedRpcError';
  }
}
