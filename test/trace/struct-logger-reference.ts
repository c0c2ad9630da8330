/**
 * The struct logger as the node built it before steps were encoded straight to text: one
 * object per step, JSON.stringify of the whole result at the end. Kept only as the reference
 * the text encoder (src/trace/struct-logger.ts) is compared with, byte for byte; it has no
 * size cap.
 */
import { bytesHex, word } from '../../src/trace/hex.js';
import type { StructLoggerConfig } from '../../src/trace/struct-logger.js';
import type { FrameEnd, Hex, JsonValue, OpcodeStep, Tracer, TxEnd } from '../../src/trace/types.js';

type StructLogEntry = { [key: string]: JsonValue };

const SLOAD = 0x54;
const SSTORE = 0x55;

function failedBeforeExecuting(error: string): boolean {
  return (
    error === 'out of gas' ||
    error.startsWith('out of gas:') ||
    error.startsWith('stack underflow') ||
    error.startsWith('stack limit reached') ||
    error === 'gas uint64 overflow'
  );
}

/** Touched slots of one account, in key order. */
class TouchedStorage {
  readonly #keys: Hex[] = [];
  readonly #values = new Map<Hex, Hex>();

  set(slot: Hex, value: Hex): void {
    if (!this.#values.has(slot)) {
      this.#keys.push(slot);
      this.#keys.sort();
    }
    this.#values.set(slot, value);
  }

  snapshot(): { [slot: string]: JsonValue } {
    const out: { [slot: string]: JsonValue } = {};
    for (const key of this.#keys) out[key] = this.#values.get(key)!;
    return out;
  }
}

function memoryWords(memory: Uint8Array): string[] {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength).toString('hex');
  const words: string[] = [];
  for (let i = 0; i + 64 <= hex.length; i += 64) words.push(`0x${hex.slice(i, i + 64)}`);
  return words;
}

/** The object-per-step struct logger. */
export class ReferenceStructLogger implements Tracer {
  readonly #config: StructLoggerConfig;
  readonly #logs: StructLogEntry[] = [];
  readonly #storage = new Map<Hex, TouchedStorage>();
  #lastStep: OpcodeStep | undefined;
  #lastIndex = -1;
  #gas = 0n;
  #failed = false;
  #returnValue: Uint8Array = new Uint8Array();

  constructor(config: StructLoggerConfig) {
    this.#config = config;
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    this.#lastStep = step;
    this.#lastIndex = -1;
    if (this.#config.limit > 0 && this.#logs.length >= this.#config.limit) return;
    const entry: StructLogEntry = { pc: step.pc, op: step.opName, gas: Number(step.gas), gasCost: Number(step.cost), depth: step.depth + 1 };
    if (!this.#config.disableStack) entry.stack = step.stack.map((value) => `0x${value.toString(16)}`);
    if (this.#config.enableReturnData && step.returnData.length > 0) entry.returnData = bytesHex(step.returnData);
    if (this.#config.enableMemory && step.memory.length > 0) entry.memory = memoryWords(step.memory);
    if (!this.#config.disableStorage && (step.op === SLOAD || step.op === SSTORE)) {
      const stack = step.stack;
      if (stack.length >= (step.op === SLOAD ? 1 : 2)) {
        const slot = word(stack[stack.length - 1]!);
        const value = step.op === SLOAD ? await step.state.storage(step.address, slot) : word(stack[stack.length - 2]!);
        let touched = this.#storage.get(step.address);
        if (touched === undefined) this.#storage.set(step.address, (touched = new TouchedStorage()));
        touched.set(slot, value);
        entry.storage = touched.snapshot();
      }
    }
    const refund = Number(step.refund);
    if (refund !== 0) entry.refund = refund;
    this.#lastIndex = this.#logs.length;
    this.#logs.push(entry);
  }

  onFault(step: OpcodeStep, error: string): void {
    if (step !== this.#lastStep || this.#lastIndex < 0 || !failedBeforeExecuting(error)) return;
    const { pc, op, gas, gasCost, depth, ...rest } = this.#logs[this.#lastIndex]!;
    this.#logs[this.#lastIndex] = { pc: pc!, op: op!, gas: gas!, gasCost: gasCost!, depth: depth!, error, ...rest };
    this.#lastIndex = -1;
  }

  onExit(frame: FrameEnd): void {
    if (frame.depth !== 0) return;
    this.#failed = frame.error !== undefined;
    this.#returnValue = frame.error === undefined || frame.reverted ? frame.output : new Uint8Array();
  }

  onTxEnd(end: TxEnd): void {
    this.#gas = end.gasUsed;
  }

  result(): JsonValue {
    return { gas: Number(this.#gas), failed: this.#failed, returnValue: bytesHex(this.#returnValue), structLogs: this.#logs };
  }
}
