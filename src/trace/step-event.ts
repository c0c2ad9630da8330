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
    stack: { getStack(): bigint[]; readonly length: number };
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
export type DirectStepListener = (event: StepEvent) => void | Promise<void>;

/**
 * The step event the bridge reads: the library's fields, plus the stack's height without a copy
 * of the stack (absent when the library's own hook built the event).
 */
export type StepEvent = Omit<InterpreterStep, 'eofSection' | 'immediate' | 'error' | 'eofFunctionDepth' | 'storage'> & {
  readonly stackLength?: number;
};

type OpcodeInfo = ReturnType<InterpreterInternals['lookupOpInfo']>['opcodeInfo'];

/**
 * The event of a direct listener: one per EVM, rewritten for each opcode. The copy of the
 * stack and the view of memory are made when first read, as most steps of most tracers never
 * read them; the interpreter waits for the listener, so they are read in the state of the step.
 */
class ReusedStepEvent implements StepEvent {
  pc = 0;
  gasLeft = 0n;
  gasRefund = 0n;
  depth = 0;
  memoryWordCount = 0n;
  stackLength = 0;
  readonly opcode: StepEvent['opcode'] = { name: '', fee: 0, dynamicFee: undefined, isAsync: false, code: 0 };
  address!: StepEvent['address'];
  account!: StepEvent['account'];
  codeAddress!: StepEvent['codeAddress'];
  stateManager!: StepEvent['stateManager'];
  #interpreter: InterpreterInternals | undefined;
  #stack: bigint[] | undefined;
  #memory: Uint8Array | undefined;

  get stack(): bigint[] {
    return (this.#stack ??= this.#interpreter!._runState.stack.getStack());
  }

  get memory(): Uint8Array {
    return (this.#memory ??= this.#interpreter!._runState.memory._store.subarray(0, Number(this.memoryWordCount) * 32));
  }

  /** Writes the step `interpreter` is at into this event. */
  fill(interpreter: InterpreterInternals, info: OpcodeInfo, dynamicFee: bigint, gasLeft: bigint, memoryWords: bigint): void {
    const state = interpreter._runState;
    const env = interpreter._env;
    const opcode = this.opcode;
    opcode.name = info.fullName;
    opcode.fee = info.fee;
    opcode.dynamicFee = dynamicFee;
    opcode.isAsync = info.isAsync;
    opcode.code = info.code;
    this.pc = state.programCounter;
    this.gasLeft = gasLeft;
    this.gasRefund = state.gasRefund;
    this.depth = env.depth;
    this.address = env.address;
    this.account = env.contract;
    this.codeAddress = env.codeAddress;
    this.stateManager = state.stateManager;
    this.memoryWordCount = memoryWords;
    this.stackLength = state.stack.length;
    this.#interpreter = interpreter;
    this.#stack = undefined;
    this.#memory = undefined;
  }
}

const directSteps = new WeakMap<object, { listener: DirectStepListener; event: ReusedStepEvent }>();

/**
 * Makes `listener` the EVM's direct step listener. It stands in for the one `step` listener
 * the caller also keeps on `evm.events` (the interpreter only emits steps while one is there);
 * while any other `step` listener is attached, every listener is called the library's way.
 */
export function setDirectStepListener(evm: object, listener: DirectStepListener | undefined): void {
  if (listener === undefined) directSteps.delete(evm);
  else directSteps.set(evm, { listener, event: new ReusedStepEvent() });
}

const prototype = interpreterPrototype as { _runStepHook?: StepHook } | undefined;

if (prototype !== undefined && typeof prototype._runStepHook === 'function') {
  prototype._runStepHook = function leanStepHook(dynamicFee, gasLeft, memoryWords) {
    const state = this._runState;
    const info = this.lookupOpInfo(state.opCode).opcodeInfo;
    const direct = directSteps.get(this._evm);
    if (direct !== undefined && this._evm.events.listenerCount('step') === 1) {
      direct.event.fill(this, info, dynamicFee, gasLeft, memoryWords);
      return direct.listener(direct.event);
    }
    const event: StepEvent = {
      pc: state.programCounter,
      gasLeft,
      gasRefund: state.gasRefund,
      opcode: { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code },
      stack: state.stack.getStack(),
      stackLength: state.stack.length,
      depth: this._env.depth,
      address: this._env.address,
      account: this._env.contract,
      memory: state.memory._store.subarray(0, Number(memoryWords) * 32),
      memoryWordCount: memoryWords,
      codeAddress: this._env.codeAddress,
      stateManager: state.stateManager,
    };
    return this._evm._emit('step', event);
  };
}
