/**
 * A geth JavaScript tracer (`step`, `fault`, `result`, optional `enter`/`exit`/`setup`) run
 * in its own QuickJS context for one transaction, driven by the tracer hooks.
 */
import { generateAddress, generateAddress2 } from '@ethereumjs/util';

import { bytesHex, memorySlice, minimalBytes, wordAddress, word } from '../hex.js';
import { stackArity } from '../opcode-stack.js';
import type { FrameEnd, FrameStart, Hex, JsonValue, OpcodeStep, Tracer, TxEnd, TxStart } from '../types.js';
import { JsTracerError, JsTracerTimeoutError } from './errors.js';
import type { JsTracerLimits } from './limits.js';
import { TracerSandbox, type SandboxArg } from './sandbox.js';
import { dbUsesOf, StateSnapshot, type StatePreload } from './state-cache.js';
import { StepHost } from './step-host.js';

const STACK_LIMIT = 1024;
const CREATE = 0xf0;
const CREATE2 = 0xf5;
const SSTORE = 0x55;
/** Failures geth finds after the frame's code has run (code deposit checks): fault() does not see them. */
const AFTER_RUN_ERRORS = new Set([
  'contract creation code storage out of gas',
  'max code size exceeded',
  'invalid code: must not begin with 0xef',
]);
/** Opcodes after which balances, nonces, code or storage anywhere may differ. */
const MOVES_STATE = new Set([0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0xff]);
/** Opcodes whose top stack word is an account (BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH, SELFDESTRUCT). */
const ACCOUNT_OPERAND = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff]);
/** CALL, CALLCODE, DELEGATECALL, STATICCALL: the second stack word is the callee. */
const CALL_FAMILY = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const SLOAD = 0x54;

/** A ctx entry: how the prelude rebuilds it (bytes, bigInt or plain) and its value. */
type CtxEntry = ['bytes' | 'big', string] | ['plain', string | number];

/** Disposes the runtimes of tracers dropped before they finished (a failed run never reaches result()). */
const abandoned = new FinalizationRegistry<TracerSandbox>((sandbox) => sandbox.dispose());

/** The error geth reports when an opcode fails before it runs (step() sees it, fault() does not run). */
function failsBeforeRunning(step: OpcodeStep): string | undefined {
  const { pops, pushes } = stackArity(step.op);
  const length = step.stack.length;
  if (length < pops) return `stack underflow (${length} <=> ${pops})`;
  if (length - pops + pushes > STACK_LIMIT) return `stack limit reached ${length} (${STACK_LIMIT + pops - pushes})`;
  if (step.gas < step.cost) return 'out of gas';
  return undefined;
}

/** A JavaScript tracer for one transaction. */
export class JsTracer implements Tracer {
  private readonly sandbox: TracerSandbox;
  private readonly host: StepHost;
  private readonly state: StateSnapshot;
  private tx: TxStart | undefined;
  private failure: Error | undefined;
  private output: JsonValue | undefined;
  private finished = false;
  /** The last step of each open frame (fault() on REVERT reports it). */
  private readonly frameSteps: Array<OpcodeStep | undefined> = [];
  /** Steps step() already saw failing; geth does not call fault() for them. */
  private readonly failedBeforeRunning = new WeakSet<OpcodeStep>();
  /** The step the state snapshot was loaded for. */
  private snapshotOf: OpcodeStep | undefined;
  private topOutput: Uint8Array = new Uint8Array();
  private topError: string | undefined;

  /**
   * Evaluates `source` and runs its `setup` with `config` (as geth does, a JSON string);
   * `preload` is shared by the tracers of one request (see StatePreload).
   */
  constructor(source: string, config: JsonValue | undefined, private readonly limits: JsTracerLimits, preload?: StatePreload) {
    this.state = new StateSnapshot(dbUsesOf(source), preload);
    this.host = new StepHost(this.state);
    this.sandbox = new TracerSandbox(source, limits, this.host);
    abandoned.register(this, this.sandbox, this);
    if (this.sandbox.has('setup')) this.invoke('setup', [JSON.stringify(config ?? {})]);
  }

  onTxStart(tx: TxStart): void {
    this.tx = tx;
    this.host.rules = tx.rules;
  }

  onEnter(frame: FrameStart): void {
    this.frameSteps.push(undefined);
    this.state.invalidate('all');
    if (frame.depth === 0 || !this.sandbox.has('enter')) return;
    this.checkAlive();
    this.invoke('enter', [
      frame.type,
      frame.from,
      frame.to,
      bytesHex(frame.input),
      Number(frame.gas),
      frame.value === undefined ? undefined : `0x${frame.value.toString(16)}`,
    ]);
  }

  onExit(frame: FrameEnd): void {
    const last = this.frameSteps.pop();
    this.checkAlive();
    // geth reports a REVERT to fault() before the frame exits (and before its state is undone).
    if (frame.reverted && last !== undefined) this.callStep('fault', last, frame.error);
    this.state.invalidate('all');
    if (frame.depth === 0) {
      this.topOutput = frame.output;
      this.topError = frame.error;
      return;
    }
    if (this.sandbox.has('exit')) this.invoke('exit', [Number(frame.gasUsed), bytesHex(frame.output), frame.error]);
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    this.checkAlive();
    this.forgetChangedState();
    this.frameSteps[this.frameSteps.length - 1] = step;
    if (!this.sandbox.has('step') && !this.state.needed) return;
    await this.loadState(step);
    if (!this.sandbox.has('step')) return;
    const error = failsBeforeRunning(step);
    if (error !== undefined) this.failedBeforeRunning.add(step);
    this.callStep('step', step, error);
  }

  async onFault(step: OpcodeStep, error: string): Promise<void> {
    this.checkAlive();
    if (this.failedBeforeRunning.has(step) || AFTER_RUN_ERRORS.has(error)) return;
    if (this.snapshotOf !== step) await this.loadState(step);
    this.callStep('fault', step, error);
  }

  /** Drops snapshot entries the previous step may have changed. */
  private forgetChangedState(): void {
    const previous = this.snapshotOf;
    if (previous === undefined) return;
    if (MOVES_STATE.has(previous.op)) this.state.invalidate('all');
    else if (previous.op === SSTORE) this.state.invalidate('storage');
  }

  async onTxEnd(end: TxEnd): Promise<void> {
    this.checkAlive();
    const tx = this.tx;
    if (tx === undefined) throw new JsTracerError('the tracer saw no transaction start');
    const to = tx.to ?? tx.createdAddress;
    this.host.current = undefined;
    this.state.invalidate('all');
    await this.state.load(end.state, [tx.from, tx.coinbase, ...(to === undefined ? [] : [to])], []);
    const ctx: Record<string, CtxEntry> = {
      type: ['plain', tx.to === undefined ? 'CREATE' : 'CALL'],
      from: ['bytes', tx.from],
      to: ['bytes', to ?? '0x'],
      input: ['bytes', bytesHex(tx.input)],
      gas: ['plain', Number(tx.gasLimit)],
      gasUsed: ['plain', Number(end.gasUsed)],
      gasPrice: ['big', `0x${tx.gasPrice.toString(16)}`],
      value: ['big', `0x${tx.value.toString(16)}`],
      block: ['plain', Number(tx.block.number)],
      coinbase: ['bytes', tx.coinbase],
      output: ['bytes', bytesHex(this.topOutput)],
    };
    if (this.topError !== undefined) ctx.error = ['plain', this.topError];
    if (tx.block.hash !== undefined) ctx.blockHash = ['bytes', tx.block.hash];
    if (tx.block.txIndex !== undefined) ctx.txIndex = ['plain', tx.block.txIndex];
    if (tx.block.txHash !== undefined) ctx.txHash = ['bytes', tx.block.txHash];
    const json = this.invoke('result', [JSON.stringify(ctx)]);
    this.output = JSON.parse(json ?? 'null') as JsonValue;
    this.finish();
  }

  result(): JsonValue {
    if (this.failure !== undefined) throw this.failure;
    if (this.output === undefined) throw new JsTracerError('the JavaScript tracer has no result: the transaction did not finish');
    return this.output;
  }

  /** Frees the tracer's runtime now (otherwise it is freed after result or when dropped). */
  dispose(): void {
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    abandoned.unregister(this);
    this.sandbox.dispose();
  }

  /** Throws the failure that ended the tracer, or geth's timeout once the deadline has passed. */
  private checkAlive(): void {
    if (this.failure === undefined && Date.now() > this.limits.deadlineMs) this.fail(new JsTracerTimeoutError('execution timeout'));
    if (this.failure !== undefined) throw this.failure;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.finish();
  }

  private invoke(method: Parameters<TracerSandbox['call']>[0], args: readonly SandboxArg[]): string | undefined {
    try {
      return this.sandbox.call(method, args);
    } catch (error) {
      this.fail(error instanceof Error ? error : new JsTracerError(String(error)));
      throw this.failure;
    }
  }

  private callStep(method: 'step' | 'fault', step: OpcodeStep, error: string | undefined): void {
    this.host.current = step;
    this.invoke(method, [step.pc, step.op, Number(step.gas), Number(step.cost), step.depth + 1, Number(step.refund), error]);
  }

  /**
   * Loads the accounts and slots a call for `step` is likely to read: the frame's and the
   * transaction's accounts, and the account or slot the opcode's operands name.
   */
  private async loadState(step: OpcodeStep): Promise<void> {
    this.snapshotOf = step;
    if (!this.state.needed) return;
    const tx = this.tx;
    const addresses: Hex[] = [step.address, step.contract.caller];
    if (step.contract.codeAddress !== '0x') addresses.push(step.contract.codeAddress);
    if (tx !== undefined) {
      addresses.push(tx.from, tx.coinbase);
      const to = tx.to ?? tx.createdAddress;
      if (to !== undefined) addresses.push(to);
    }
    const stack = step.stack;
    const top = (i: number): bigint => stack[stack.length - 1 - i] ?? 0n;
    if (ACCOUNT_OPERAND.has(step.op) && stack.length >= 1) addresses.push(wordAddress(top(0)));
    if (CALL_FAMILY.has(step.op) && stack.length >= 2) addresses.push(wordAddress(top(1)));
    const created = await this.createdAddress(step, top);
    if (created !== undefined) addresses.push(created);
    const slots: Array<[Hex, Hex]> = [];
    if ((step.op === SLOAD || step.op === SSTORE) && stack.length >= 1) slots.push([step.address, word(top(0))]);
    await this.state.load(step.state, addresses, slots);
  }

  /** The address a CREATE/CREATE2 step deploys to (tracers look it up with toContract/toContract2). */
  private async createdAddress(step: OpcodeStep, top: (i: number) => bigint): Promise<Hex | undefined> {
    if (step.op === CREATE) {
      const nonce = await step.state.nonce(step.address);
      return bytesHex(generateAddress(Buffer.from(step.address.slice(2), 'hex'), minimalBytes(nonce)));
    }
    if (step.op === CREATE2 && step.stack.length >= 4 && top(2) <= BigInt(step.memory.length) + 0x10000n) {
      const initcode = memorySlice(step.memory, top(1), top(2));
      const salt = Buffer.from(top(3).toString(16).padStart(64, '0'), 'hex');
      return bytesHex(generateAddress2(Buffer.from(step.address.slice(2), 'hex'), salt, initcode));
    }
    return undefined;
  }
}
