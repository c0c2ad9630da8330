/**
 * Turns @ethereumjs/evm's events (beforeMessage, step, afterMessage) into geth-style tracer
 * hooks. The EVM has no events for calls refused before they start (depth, balance) nor for
 * SELFDESTRUCT, and no opcode on a Message, so those are recovered from the `step` that
 * issued them; a step's effects are only reported once the step is known to have run.
 */
import type { Common } from '@ethereumjs/common';
import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import { Hardfork } from '@ethereumjs/common';

import { precompileNumber } from '../evm/errors.js';
import { gethVmError, type FailedStep } from './errors.js';
import { setDirectStepListener, type StepEvent } from './step-event.js';
import { memorySlice, wordAddress } from './hex.js';
import { looksAtOpcodes, type FrameContract, type FrameStart, type FrameType, type Hex, type OpcodeStep, type StateReader, type TraceLog, type Tracer } from './types.js';
import { withFields } from '../util/objects.js';

const CALL_STIPEND = 2300n;
const MAX_CALL_DEPTH = 1024;

const CALL_OPS: Record<number, FrameType> = {
  0xf0: 'CREATE',
  0xf1: 'CALL',
  0xf2: 'CALLCODE',
  0xf4: 'DELEGATECALL',
  0xf5: 'CREATE2',
  0xfa: 'STATICCALL',
};
const SELFDESTRUCT = 0xff;
const RETURN = 0xf3;
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const PREVRANDAO = 0x44;
const INVALID = 0xfe;
const STOP = 0x00;
const REVERT = 0xfd;
/** Opcodes after which a frame is over even when code follows them. */
const HALTING_OPS: ReadonlySet<number> = new Set([STOP, RETURN, REVERT, INVALID, SELFDESTRUCT]);

/**
 * geth's names for opcodes that a fork may not have activated yet: geth names a byte the same
 * at every fork, while @ethereumjs/evm calls an inactive opcode INVALID.
 */
const LATER_FORK_OPCODES: Readonly<Record<number, string>> = {
  0x1b: 'SHL', 0x1c: 'SHR', 0x1d: 'SAR', 0x1e: 'CLZ', 0x3d: 'RETURNDATASIZE', 0x3e: 'RETURNDATACOPY',
  0x3f: 'EXTCODEHASH', 0x46: 'CHAINID', 0x47: 'SELFBALANCE', 0x48: 'BASEFEE', 0x49: 'BLOBHASH',
  0x4a: 'BLOBBASEFEE', 0x5c: 'TLOAD', 0x5d: 'TSTORE', 0x5e: 'MCOPY', 0x5f: 'PUSH0', 0xf4: 'DELEGATECALL',
  0xf5: 'CREATE2', 0xfa: 'STATICCALL', 0xfd: 'REVERT',
};

/** geth's name for `op` given the EVM's name for it (geth keeps DIFFICULTY for 0x44 after the merge). */
export function gethOpName(op: number, evmName: string): string {
  if (op === PREVRANDAO) return 'DIFFICULTY';
  if (evmName !== 'INVALID' || op === INVALID) return evmName;
  return LATER_FORK_OPCODES[op] ?? `opcode 0x${op.toString(16)} not defined`;
}

/** What a step will have done once it is known to have executed. */
interface StepRecord {
  op: number;
  /** A frame to report if the call/create op produced no message (refused before starting). */
  refusedCall: { frame: FrameStart; error: string } | undefined;
  log: Omit<TraceLog, 'index'> | undefined;
  selfdestruct: FrameStart | undefined;
}

interface OpenFrame {
  /** The EVM's message; its `code` is loaded by the time the frame's first step runs. */
  message: Message;
  depth: number;
  address: Hex | undefined;
  /** The EVM's address object `address` was last made from. */
  addressObject?: unknown;
  /** The transaction's log count when the frame began; restored if it fails. */
  logMark: number;
  input: Uint8Array;
  isCreate: boolean;
  /** What the frame's RETURN handed back (init code's runtime code for a creation). */
  returned: Uint8Array | undefined;
  /** The last step begun, which names the reason if the frame fails. */
  lastStep: FailedStep | undefined;
  /** The last step as the tracer saw it (for onFault). */
  lastTraced: OpcodeStep | undefined;
  contract: FrameContract;
  /** What the last completed child frame returned. */
  returnData: Uint8Array;
  /** Effects of the last step, not yet reported. */
  pending: StepRecord | undefined;
}

/** The EVM fork facts the bridge depends on. */
interface BridgeRules {
  eip150: boolean;
  sstoreSentry: boolean;
  /** Frontier: a creation that cannot pay for its code still succeeds. */
  frontier: boolean;
}

function rulesOf(common: Common): BridgeRules {
  return {
    eip150: common.gteHardfork(Hardfork.TangerineWhistle),
    sstoreSentry: common.gteHardfork(Hardfork.Istanbul),
    frontier: common.hardfork() === Hardfork.Chainstart,
  };
}

/** Feeds one transaction's EVM events to a tracer; attach before runTx, detach after. */
export class EvmTraceBridge {
  private readonly frames: OpenFrame[] = [];
  private readonly rules: BridgeRules;
  private logCount = 0;
  private failure: unknown;
  private readonly listeners: Array<[string, (data: never, resolve: () => void) => void]>;
  private readonly directStep: (event: StepEvent) => void | Promise<void>;
  /** The tracer looks at no opcode (callTracer, 4byteTracer): steps are recorded, not built for it. */
  private readonly stepless: boolean;

  /** `firstLogIndex`: how many logs the block's earlier transactions emitted (logs carry block-level indexes). */
  constructor(private readonly evm: EVM, private readonly tracer: Tracer, private readonly state: StateReader, firstLogIndex = 0) {
    this.logCount = firstLogIndex;
    this.rules = rulesOf(evm.common);
    this.stepless = !looksAtOpcodes(tracer);
    this.directStep = this.recording((s: StepEvent) => this.step(s));
    this.listeners = [
      ['beforeMessage', this.guard((m: Message) => this.enter(m))],
      ['step', this.guard((s: StepEvent) => this.step(s))],
      ['afterMessage', this.guard((r: EVMResult) => this.exit(r))],
    ];
  }

  /** Starts listening to the EVM. */
  attach(): void {
    for (const [topic, listener] of this.listeners) this.evm.events.on(topic as 'step', listener as never);
    setDirectStepListener(this.evm, this.directStep);
  }

  /** Stops listening; throws the first error a tracer hook raised. */
  detach(): void {
    setDirectStepListener(this.evm, undefined);
    for (const [topic, listener] of this.listeners) this.evm.events.off(topic as 'step', listener as never);
    if (this.failure !== undefined) throw this.failure;
  }

  /** `handler` made safe to call from the EVM: the first error it raises is recorded, never thrown. */
  private recording<T>(handler: (data: T) => void | Promise<void>): (data: T) => void | Promise<void> {
    const fail = (error: unknown): void => {
      this.failure ??= error;
    };
    return (data) => {
      if (this.failure !== undefined) return;
      let pending: void | Promise<void>;
      try {
        pending = handler(data);
      } catch (error) {
        fail(error);
        return;
      }
      return pending?.then(undefined, fail);
    };
  }

  /** A two-argument listener (so the EVM awaits it) that records instead of throwing. */
  private guard<T>(handler: (data: T) => void | Promise<void>): (data: never, resolve: () => void) => void {
    const safe = this.recording(handler);
    return (data, resolve) => {
      const pending = safe(data as T);
      // A handler that finished synchronously releases the EVM at once (no microtask hop).
      if (pending === undefined) resolve();
      else pending.then(resolve);
    };
  }

  private enter(message: Message): void {
    const parent = this.frames[this.frames.length - 1];
    let type: FrameType;
    let from: Hex;
    if (message.depth === 0 || parent === undefined) {
      type = message.to === undefined ? 'CREATE' : 'CALL';
      from = message.caller.toString() as Hex;
    } else {
      const record = parent.pending;
      type = (record && CALL_OPS[record.op]) ?? (message.to === undefined ? 'CREATE' : 'CALL');
      if (record) record.refusedCall = undefined;
      from = parent.address ?? (message.caller.toString() as Hex);
    }
    const codeCall = type === 'CALLCODE' || type === 'DELEGATECALL';
    const to = message.to === undefined ? undefined : ((codeCall ? message.codeAddress : message.to).toString() as Hex);
    // The EVM hands out views of caller memory, which later steps overwrite.
    const input = message.data.slice();
    const address = message.to?.toString() as Hex | undefined;
    const contract: FrameContract = {
      caller: message.caller.toString() as Hex,
      address: address ?? ('0x' as Hex),
      // A creation has no code address (the getter throws); its init code runs at the new address.
      codeAddress: message.to === undefined ? ('0x' as Hex) : (message.codeAddress.toString() as Hex),
      value: message.value,
      input,
    };
    this.frames.push({ message, depth: message.depth, address, logMark: this.logCount, input, isCreate: type === 'CREATE' || type === 'CREATE2', returned: undefined, lastStep: undefined, lastTraced: undefined, contract, returnData: new Uint8Array(), pending: undefined });
    this.tracer.onEnter?.({
      depth: message.depth,
      type,
      from,
      to,
      input,
      gas: message.gasLimit,
      value: type === 'STATICCALL' ? undefined : message.value,
    });
  }

  private step(event: StepEvent): void | Promise<void> {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) return;
    this.settle(frame, true);
    // The frame's address object is the same on every step; its hex string is made once.
    if (frame.addressObject !== event.address) {
      frame.addressObject = event.address;
      frame.address = event.address.toString() as Hex;
    }
    const address = frame.address!;
    // The EVM files every undefined byte under INVALID (0xfe); geth names the byte itself.
    const code = frame.message.code;
    const op = event.opcode.code === INVALID && code instanceof Uint8Array ? (code[event.pc] ?? INVALID) : event.opcode.code;
    const cost = event.opcode.dynamicFee ?? BigInt(event.opcode.fee);
    const opName = gethOpName(op, event.opcode.name);
    if (this.stepless) {
      // Nothing is built for the tracer; the step is only timed and recorded.
      const tick = this.tracer.onTick?.();
      if (tick !== undefined) return tick.then(() => this.record(frame, event, op, opName, address, cost));
      return this.record(frame, event, op, opName, address, cost);
    }
    if (frame.contract.address === '0x') frame.contract = withFields(frame.contract, { address, codeAddress: address });
    const type = CALL_OPS[op];
    const traced: OpcodeStep = {
      pc: event.pc,
      op,
      opName,
      gas: event.gasLeft,
      // geth counts the gas a CALL hands to its callee in the CALL's cost (a CREATE's it does not).
      cost: type !== undefined && type !== 'CREATE' && type !== 'CREATE2' ? cost + this.calleeGas(type, event, cost) : cost,
      depth: event.depth,
      stack: event.stack,
      memory: event.memory,
      address,
      refund: event.gasRefund,
      returnData: frame.returnData,
      contract: frame.contract,
      state: this.state,
    };
    frame.lastTraced = traced;
    // Most hooks finish synchronously; only then can the step avoid a promise.
    const pending = this.tracer.onOpcode?.(traced);
    if (pending !== undefined) return pending.then(() => this.record(frame, event, op, opName, address, cost));
    return this.record(frame, event, op, opName, address, cost);
  }

  /** Notes what the step will have done once it is known to have run (see settle). */
  private record(frame: OpenFrame, event: StepEvent, op: number, opName: string, address: Hex, cost: bigint): void | Promise<void> {
    const last = frame.lastStep;
    const stackLength = event.stackLength ?? event.stack.length;
    // A frame's last step is read only once the frame ends, so one object per frame serves.
    if (last === undefined) frame.lastStep = { op, opName, gas: event.gasLeft, cost, stackLength };
    else {
      last.op = op;
      last.opName = opName;
      last.gas = event.gasLeft;
      last.cost = cost;
      last.stackLength = stackLength;
    }
    if (op === RETURN && frame.isCreate) {
      const top = (i: number): bigint => event.stack[event.stack.length - 1 - i] ?? 0n;
      frame.returned = memorySlice(event.memory, top(0), top(1));
    }
    const type = CALL_OPS[op];
    const logs = op >= LOG0 && op <= LOG4;
    // Most steps have no effect to report later.
    if (type === undefined && !logs && op !== SELFDESTRUCT) return;
    const record: StepRecord = {
      op,
      refusedCall: undefined,
      log: undefined,
      selfdestruct: undefined,
    };
    frame.pending = record;
    if (type !== undefined) record.refusedCall = this.refusedCall(type, event, address, cost);
    else if (logs) record.log = this.logOf(op - LOG0, event, address);
    else {
      return this.selfdestructOf(event, address).then((start) => {
        record.selfdestruct = start;
      });
    }
  }

  private async exit(result: EVMResult): Promise<void> {
    const frame = this.frames.pop();
    if (frame === undefined) return;
    let reason = result.execResult.exceptionError?.error;
    let output: Uint8Array = result.execResult.returnValue.slice();
    if (frame.isCreate && frame.lastStep?.op === RETURN && reason === 'out of gas' && frame.lastStep.gas >= frame.lastStep.cost) {
      // RETURN itself was paid for, so what ran out was the code deposit.
      reason = 'code store out of gas';
    }
    if (reason === 'code store out of gas' && this.rules.frontier) {
      // Frontier keeps the creation (without code) and geth shows the code it returned.
      reason = undefined;
      output = frame.returned ?? output;
    }
    this.settle(frame, reason === undefined);
    if (result.execResult.exceptionError === undefined) await this.stopAtCodeEnd(frame, result);
    const error = reason === undefined ? undefined : gethVmError(reason, frame.lastStep, this.rules.sstoreSentry, frame.input, precompileNumber(frame.address));
    if (error !== undefined) this.logCount = frame.logMark;
    const parent = this.frames[this.frames.length - 1];
    if (parent !== undefined) parent.returnData = frame.isCreate && error === undefined ? new Uint8Array() : output;
    if (error !== undefined && reason !== 'revert' && frame.lastTraced !== undefined) await this.tracer.onFault?.(frame.lastTraced, error);
    this.tracer.onExit?.({
      depth: frame.depth,
      output,
      gasUsed: result.execResult.executionGasUsed,
      error,
      reverted: error === 'execution reverted',
      createdAddress: result.createdAddress?.toString() as Hex | undefined,
    });
  }

  /**
   * geth reads a STOP past the end of the code and traces it; @ethereumjs/evm just leaves its
   * loop. So a frame that ran off the end of its code gets that STOP step here.
   */
  private async stopAtCodeEnd(frame: OpenFrame, result: EVMResult): Promise<void> {
    const runState = result.execResult.runState;
    const last = frame.lastStep;
    if (this.stepless || runState === undefined || last === undefined || HALTING_OPS.has(last.op)) return;
    if (runState.programCounter < runState.code.length) return;
    const memory = new Uint8Array(Number(runState.memoryWordCount) * 32);
    memory.set(runState.memory._store.subarray(0, memory.length));
    const traced: OpcodeStep = {
      pc: runState.programCounter,
      op: STOP,
      opName: 'STOP',
      gas: result.execResult.gas ?? runState.gasLeft,
      cost: 0n,
      depth: frame.depth,
      stack: runState.stack.getStack(),
      memory,
      address: frame.address ?? frame.contract.address,
      // The run state's own refund field is the frame's starting value; the result has the final one.
      refund: result.execResult.gasRefund ?? 0n,
      returnData: frame.returnData,
      contract: frame.contract,
      state: this.state,
    };
    frame.lastTraced = traced;
    await this.tracer.onOpcode?.(traced);
  }

  /** Reports what the frame's last step did, or drops it when the step turned out to fail. */
  private settle(frame: OpenFrame, executed: boolean): void {
    const record = frame.pending;
    frame.pending = undefined;
    if (record === undefined || !executed) return;
    if (record.refusedCall !== undefined) {
      const { frame: start, error } = record.refusedCall;
      // A refused call returned nothing, so RETURNDATASIZE is 0 afterwards.
      frame.returnData = new Uint8Array();
      this.tracer.onEnter?.(start);
      this.tracer.onExit?.({ depth: start.depth, output: new Uint8Array(), gasUsed: 0n, error, reverted: false, createdAddress: undefined });
    }
    if (record.log !== undefined) this.tracer.onLog?.(withFields(record.log, { index: this.logCount++ }));
    if (record.selfdestruct !== undefined) {
      const start = record.selfdestruct;
      this.tracer.onEnter?.(start);
      this.tracer.onExit?.({ depth: start.depth, output: new Uint8Array(), gasUsed: 0n, error: undefined, reverted: false, createdAddress: undefined });
    }
  }

  /** The frame geth reports if this call/create is refused before it starts. */
  private refusedCall(type: FrameType, event: StepEvent, from: Hex, cost: bigint): StepRecord['refusedCall'] {
    const stack = event.stack;
    const top = (i: number): bigint => stack[stack.length - 1 - i] ?? 0n;
    const depth = event.depth + 1;
    const error = depth > MAX_CALL_DEPTH ? 'max call depth exceeded' : 'insufficient balance for transfer';
    if (type === 'CREATE' || type === 'CREATE2') {
      const input = memorySlice(event.memory, top(1), top(2));
      return { frame: { depth, type, from, to: undefined, input, gas: this.calleeGas(type, event, cost), value: top(0) }, error };
    }
    const hasValue = type === 'CALL' || type === 'CALLCODE';
    const args = hasValue ? 3 : 2;
    let gas = this.calleeGas(type, event, cost);
    const value = hasValue ? top(2) : undefined;
    if (value !== undefined && value > 0n) gas += CALL_STIPEND;
    const input = memorySlice(event.memory, top(args), top(args + 1));
    return {
      frame: { depth, type, from, to: wordAddress(top(1)), input, gas, value: type === 'STATICCALL' ? undefined : (value ?? 0n) },
      error,
    };
  }

  /**
   * Gas a call or create op hands its callee before any stipend: for calls the request, capped
   * at all but 1/64 of what is left from Tangerine Whistle on; for creates all (but 1/64) of it.
   */
  private calleeGas(type: FrameType, event: StepEvent, cost: bigint): bigint {
    const stack = event.stack;
    const requested = stack[stack.length - 1];
    const available = event.gasLeft - cost;
    if (requested === undefined || available < 0n) return 0n;
    const allButOne64th = available - available / 64n;
    if (type === 'CREATE' || type === 'CREATE2') return this.rules.eip150 ? allButOne64th : available;
    return this.rules.eip150 && requested > allButOne64th ? allButOne64th : requested;
  }

  private logOf(topicCount: number, event: StepEvent, address: Hex): Omit<TraceLog, 'index'> {
    const stack = event.stack;
    const top = (i: number): bigint => stack[stack.length - 1 - i] ?? 0n;
    const topics: Hex[] = [];
    for (let i = 0; i < topicCount; i++) topics.push(`0x${top(2 + i).toString(16).padStart(64, '0')}`);
    return { depth: event.depth, address, topics, data: memorySlice(event.memory, top(0), top(1)) };
  }

  private async selfdestructOf(event: StepEvent, address: Hex): Promise<FrameStart> {
    const beneficiary = wordAddress(event.stack[event.stack.length - 1] ?? 0n);
    const balance = await this.state.balance(address);
    return { depth: event.depth + 1, type: 'SELFDESTRUCT', from: address, to: beneficiary, input: new Uint8Array(), gas: 0n, value: balance };
  }
}

