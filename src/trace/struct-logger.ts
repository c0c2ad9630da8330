/**
 * The struct (opcode) logger: geth's default tracer when no `tracer` is named, also served as
 * `opcodeTracer`. Output `{gas, failed, returnValue, structLogs}` with one entry per executed
 * opcode in execution order: `pc, op, gas, gasCost, depth, stack, memory, storage`
 * (tracing-digest §3). Not yet reported: the per-step `error` of ops that fail before
 * executing, `returnData`, and `refund`.
 */
import { bytesHex } from './hex.js';
import type { FrameEnd, Hex, JsonValue, OpcodeStep, Tracer, TxEnd } from './types.js';

/** Struct-logger options (top level of geth's TraceConfig). */
export interface StructLoggerConfig {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  /** Stop logging steps once their encoded JSON exceeds this many bytes (0 = no limit). */
  limit: number;
}

const SLOAD = 0x54;
const SSTORE = 0x55;

function word(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}` as Hex;
}

/** geth's struct logger. */
export class StructLogger implements Tracer {
  readonly #config: StructLoggerConfig;
  readonly #logs: Array<Record<string, JsonValue>> = [];
  readonly #storage = new Map<string, Map<Hex, Hex>>();
  #bytes = 0;
  #gas = 0n;
  #failed = false;
  #returnValue: Uint8Array = new Uint8Array();

  constructor(config: StructLoggerConfig) {
    this.#config = config;
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    if (this.#config.limit > 0 && this.#bytes > this.#config.limit) return;
    const entry: Record<string, JsonValue> = {
      pc: step.pc,
      op: step.opName,
      gas: Number(step.gas),
      gasCost: Number(step.cost),
      depth: step.depth,
    };
    if (!this.#config.disableStack) entry.stack = step.stack.map((v) => `0x${v.toString(16)}`);
    if (this.#config.enableMemory && step.memory.length > 0) {
      const words: string[] = [];
      for (let i = 0; i < step.memory.length; i += 32) words.push(bytesHex(step.memory.subarray(i, i + 32)));
      entry.memory = words;
    }
    if (!this.#config.disableStorage && (step.op === SLOAD || step.op === SSTORE) && step.stack.length >= (step.op === SLOAD ? 1 : 2)) {
      const slot = word(step.stack[step.stack.length - 1]!);
      const value = step.op === SLOAD ? await step.state.storage(step.address, slot) : word(step.stack[step.stack.length - 2]!);
      let touched = this.#storage.get(step.address);
      if (!touched) this.#storage.set(step.address, (touched = new Map()));
      touched.set(slot, value);
      entry.storage = Object.fromEntries(touched);
    }
    this.#logs.push(entry);
    if (this.#config.limit > 0) this.#bytes += JSON.stringify(entry).length;
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
