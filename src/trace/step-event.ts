/**
 * A leaner `step` event for @ethereumjs/evm. The interpreter builds one event per opcode
 * while a `step` listener is attached, and copies the frame's whole memory into it every
 * time: for a contract using a few kilobytes of memory that copy is most of what tracing
 * costs. The EVM waits for the listeners before it runs the opcode, and every consumer here
 * reads memory during the event (copying what it keeps), so the event carries a view of the
 * memory instead. The fields the tracers do not read (EOF sections, immediates, revert data)
 * are left out. If the hook is missing (another @ethereumjs version) the library's own stays.
 *
 * The library also hands each event to its listeners through an async emitter: a listener
 * array, an async function and a Promise per listener, for every opcode. A listener registered
 * as the EVM's direct step listener is instead called straight from the hook, and a step it
 * finishes synchronously costs no Promise at all.
 */
import type { InterpreterStep } from '@ethereumjs/evm';

import { interpreterPrototype } from '../evm/interpreter-prototype.js';

/** The interpreter state the hook reads (the library's private fields). */
interface InterpreterInternals {
  _runState: {
    programCounter: number;
    opCode: number;
    gasRefund: bigint;
    stack: { getStack(): bigint[] };
    memory: { _store: Uint8Array };
    stateManager: InterpreterStep['stateManager'];
  };
  _env: { depth: number; address: InterpreterStep['address']; contract: InterpreterStep['account']; codeAddress: InterpreterStep['codeAddress'] };
  _evm: { _emit(topic: string, event: unknown): Promise<void>; events: { listenerCount(topic: string): number } };
  lookupOpInfo(op: number): { opcodeInfo: { fullName: string; fee: number; isAsync: boolean; code: number } };
}

type StepHook = (this: InterpreterInternals, dynamicFee: bigint, gasLeft: bigint, memoryWords: bigint) => Promise<void> | void;

/**
 * A step listener called directly: it must not throw, a Promise it returns must not reject, and
 * it must not keep the event past the step (the next step reuses the object).
 */
export type DirectStepListener = (event: InterpreterStep) => void | Promise<void>;

/** A direct listener and the one event object its steps are written into. */
interface DirectStep {
  listener: DirectStepListener;
  event: LeanStepEvent;
}

type LeanStepEvent = Omit<InterpreterStep, 'eofSection' | 'immediate' | 'error' | 'eofFunctionDepth' | 'storage'>;

const directSteps = new WeakMap<object, DirectStep>();

/**
 * Makes `listener` the EVM's direct step listener. It stands in for the one `step` listener
 * the caller also keeps on `evm.events` (the interpreter only emits steps while one is there);
 * while any other `step` listener is attached, every listener is called the library's way.
 */
export function setDirectStepListener(evm: object, listener: DirectStepListener | undefined): void {
  if (listener === undefined) directSteps.delete(evm);
  else directSteps.set(evm, { listener, event: { opcode: {} } as LeanStepEvent });
}

const prototype = interpreterPrototype as { _runStepHook?: StepHook } | undefined;

if (prototype !== undefined && typeof prototype._runStepHook === 'function') {
  prototype._runStepHook = function leanStepHook(dynamicFee, gasLeft, memoryWords) {
    const state = this._runState;
    const info = this.lookupOpInfo(state.opCode).opcodeInfo;
    const direct = directSteps.get(this._evm);
    if (direct !== undefined && this._evm.events.listenerCount('step') === 1) {
      // Written in place: the listener is done with the previous step's event by now.
      const event = direct.event;
      fillEvent(event, this, info, dynamicFee, gasLeft, memoryWords);
      return direct.listener(event as InterpreterStep);
    }
    const event = fillEvent({ opcode: {} } as LeanStepEvent, this, info, dynamicFee, gasLeft, memoryWords);
    return this._evm._emit('step', event);
  };
}

/** Writes the step the interpreter is at into `event` (and its `opcode`). */
function fillEvent(
  event: LeanStepEvent,
  interpreter: InterpreterInternals,
  info: ReturnType<InterpreterInternals['lookupOpInfo']>['opcodeInfo'],
  dynamicFee: bigint,
  gasLeft: bigint,
  memoryWords: bigint,
): LeanStepEvent {
  const state = interpreter._runState;
  const env = interpreter._env;
  const opcode = event.opcode;
  opcode.name = info.fullName;
  opcode.fee = info.fee;
  opcode.dynamicFee = dynamicFee;
  opcode.isAsync = info.isAsync;
  opcode.code = info.code;
  event.pc = state.programCounter;
  event.gasLeft = gasLeft;
  event.gasRefund = state.gasRefund;
  event.stack = state.stack.getStack();
  event.depth = env.depth;
  event.address = env.address;
  event.account = env.contract;
  event.memory = state.memory._store.subarray(0, Number(memoryWords) * 32);
  event.memoryWordCount = memoryWords;
  event.codeAddress = env.codeAddress;
  event.stateManager = state.stateManager;
  return event;
}
