/**
 * A wall-clock deadline for the EVM runs of one call, checked by the interpreter every
 * CHECK_INTERVAL opcodes. A call that loops until its gas runs out (50M gas of JUMPs is many
 * seconds of interpreter time) then stops at its deadline on its own thread, which stays
 * usable. Without it the only bound is to terminate the thread, and each replacement costs a
 * fresh V8 isolate whose memory the process does not all give back. Every opcode goes through
 * the interpreter's `runStep`, so loops and deep call chains alike are caught. If the method is
 * missing (another @ethereumjs version) nothing is patched and `deadlineEnforced` is false:
 * callers keep their own outer bound.
 */
import { interpreterPrototype } from './interpreter-prototype.js';

/** Opcodes between two clock reads (a power of two): a few milliseconds of interpretation. */
const CHECK_INTERVAL = 1024;
const DEADLINE = Symbol('strata.executionDeadline');

/** Thrown out of the EVM when a run passes its deadline; the caller turns it into its own timeout error. */
export class ExecutionDeadlineError extends Error {
  constructor() {
    super('execution passed its deadline');
    this.name = 'ExecutionDeadlineError';
  }
}

/** The deadline state an EVM carries while it runs a bounded call. */
interface DeadlineState {
  /** Date.now() past which the run stops. */
  at: number;
  steps: number;
}

/** An EVM object with the deadline this module hangs on it. */
type Bounded = { [DEADLINE]?: DeadlineState };

type RunStep = (this: { _evm: Bounded }, opcode: unknown) => Promise<void>;
const prototype = interpreterPrototype as { runStep?: RunStep } | undefined;
const runStep = prototype?.runStep;

/** Whether runs are stopped at their deadline inside the interpreter. */
export const deadlineEnforced: boolean = prototype !== undefined && typeof runStep === 'function';

if (prototype !== undefined && typeof runStep === 'function') {
  prototype.runStep = function boundedRunStep(opcode) {
    const deadline = this._evm[DEADLINE];
    // Thrown synchronously inside the interpreter's try: not an EVM error, so it ends the whole run.
    if (deadline !== undefined && (++deadline.steps & (CHECK_INTERVAL - 1)) === 0 && Date.now() >= deadline.at) throw new ExecutionDeadlineError();
    return runStep.call(this, opcode);
  };
}

/** Bounds the runs of `evm` by `at` (a Date.now() time); Infinity removes the bound. */
export function setExecutionDeadline(evm: object, at: number): void {
  const bounded = evm as Bounded;
  const deadline = bounded[DEADLINE];
  // Kept once added (deleting a property would slow every later access to the EVM object).
  if (deadline === undefined) bounded[DEADLINE] = { at, steps: 0 };
  else deadline.at = at;
}

/** The deadline `evm` runs under (Infinity when unbounded), to carry over to a VM made for the same call. */
export function executionDeadlineOf(evm: object): number {
  return (evm as Bounded)[DEADLINE]?.at ?? Infinity;
}
