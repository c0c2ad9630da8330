/**
 * The struct (opcode) logger: geth's default tracer when no `tracer` is named, also served as
 * `opcodeTracer`. Output and options follow the execution-apis opcode-tracer spec
 * (OpcodeTransactionTrace / StructLog) with geth's presence rules where the spec leaves room
 * (tracing-digest §3): `{gas, failed, returnValue, structLogs}`, one entry per executed opcode
 * with fields in the order `pc, op, gas, gasCost, depth, error, stack, returnData, memory,
 * storage, refund`.
 */
import { TraceError } from './errors.js';
import { bytesHex, word } from './hex.js';
import type { FrameEnd, Hex, JsonValue, OpcodeStep, Tracer, TxEnd } from './types.js';

/** Struct-logger options: the top level of geth's TraceConfig, plus the node's size cap. */
export interface StructLoggerConfig {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  /** Each step carries the frame's return data buffer (when non-empty). */
  enableReturnData: boolean;
  /** Stop logging after this many steps (0 = no limit); execution and the result fields go on. */
  limit: number;
  /** The node's cap on the encoded `structLogs` in bytes; exceeding it fails the trace. Absent or 0 = no cap. */
  maxBytes?: number;
}

/** The encoded struct logs outgrew the node's cap; the trace is abandoned rather than held in memory. */
export class TraceTooLargeError extends TraceError {
  constructor(readonly maxBytes: number) {
    super(
      `trace too large: the struct logs exceed this node's cap of ${maxBytes} bytes; ` +
        'trace fewer steps with `limit`, drop fields with `disableStack`/`disableStorage`, or use a narrower tracer such as callTracer',
    );
  }
}

/** One structLogs entry, keys in geth's output order (JSON.stringify keeps insertion order). */
type StructLogEntry = { [key: string]: JsonValue };

const SLOAD = 0x54;
const SSTORE = 0x55;

/** Encoded lengths of the fixed JSON pieces of an entry (measured from the literals themselves). */
const PIECE = {
  pc: '{"pc":'.length,
  op: ',"op":""'.length,
  gas: ',"gas":'.length,
  gasCost: ',"gasCost":'.length,
  depth: ',"depth":}'.length,
  error: ',"error":'.length,
  stack: ',"stack":[]'.length,
  returnData: ',"returnData":""'.length,
  memory: ',"memory":[]'.length,
  storage: ',"storage":{}'.length,
  refund: ',"refund":'.length,
};
/** `"0x<64 hex>"`: a quoted memory word, storage key or storage value. */
const QUOTED_WORD = 68;
/** `"key":"value"` of one storage slot. */
const STORAGE_SLOT = QUOTED_WORD + 1 + QUOTED_WORD;

/** Digits of a non-negative integer in decimal, without building the string. */
function decimalLength(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** Bytes of `items.length` JSON strings between brackets, given the sum of their unquoted lengths. */
function listBytes(count: number, textLength: number): number {
  return textLength + count * 2 + Math.max(0, count - 1);
}

/** Whether geth reports `error` on the step: the op failed its checks (stack, gas) before executing. */
function failedBeforeExecuting(error: string): boolean {
  return (
    error === 'out of gas' ||
    error.startsWith('out of gas:') ||
    error.startsWith('stack underflow') ||
    error.startsWith('stack limit reached') ||
    error === 'gas uint64 overflow'
  );
}

/** The slots of one storage account the trace has touched, kept in key order (Go sorts map keys). */
class TouchedStorage {
  readonly #keys: Hex[] = [];
  readonly #values = new Map<Hex, Hex>();

  /** Records `value` for `slot`. */
  set(slot: Hex, value: Hex): void {
    if (!this.#values.has(slot)) {
      let low = 0;
      let high = this.#keys.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (this.#keys[mid]! < slot) low = mid + 1;
        else high = mid;
      }
      this.#keys.splice(low, 0, slot);
    }
    this.#values.set(slot, value);
  }

  /** A copy of every slot as a JSON object in key order. */
  snapshot(): { [slot: string]: JsonValue } {
    const out: { [slot: string]: JsonValue } = {};
    for (const key of this.#keys) out[key] = this.#values.get(key)!;
    return out;
  }

  get size(): number {
    return this.#keys.length;
  }
}

/** Memory as geth prints it: consecutive 32-byte words, each `0x` + 64 hex digits. */
function memoryWords(memory: Uint8Array): string[] {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength).toString('hex');
  const words: string[] = new Array<string>(hex.length >>> 6);
  for (let i = 0; i < words.length; i++) words[i] = `0x${hex.slice(i * 64, i * 64 + 64)}`;
  return words;
}

/** geth's struct logger. */
export class StructLogger implements Tracer {
  readonly #config: StructLoggerConfig;
  readonly #logs: StructLogEntry[] = [];
  readonly #storage = new Map<Hex, TouchedStorage>();
  /** Bytes of the encoded `structLogs` array so far. */
  #bytes = 2;
  #tooLarge: TraceTooLargeError | undefined;
  /** The last step seen and where its entry sits in #logs (-1 when it was not logged). */
  #lastStep: OpcodeStep | undefined;
  #lastIndex = -1;
  /** The previous step's stack and its encoding: most items survive a step, and their text is reused. */
  #previousStack: readonly bigint[] = [];
  #previousItems: string[] = [];
  #gas = 0n;
  #failed = false;
  #returnValue: Uint8Array = new Uint8Array();

  constructor(config: StructLoggerConfig) {
    this.#config = config;
  }

  onOpcode(step: OpcodeStep): void | Promise<void> {
    this.#lastStep = step;
    this.#lastIndex = -1;
    if (this.#tooLarge !== undefined) return;
    if (this.#config.limit > 0 && this.#logs.length >= this.#config.limit) return;
    const gas = Number(step.gas);
    const gasCost = Number(step.cost);
    // geth counts the transaction's own frame as depth 1.
    const depth = step.depth + 1;
    const entry: StructLogEntry = { pc: step.pc, op: step.opName, gas, gasCost, depth };
    let bytes =
      PIECE.pc + decimalLength(step.pc) + PIECE.op + step.opName.length + PIECE.gas + decimalLength(gas) +
      PIECE.gasCost + decimalLength(gasCost) + PIECE.depth + decimalLength(depth);
    if (!this.#config.disableStack) {
      const stack = this.#encodeStack(step.stack);
      let text = 0;
      for (const item of stack) text += item.length;
      entry.stack = stack;
      bytes += PIECE.stack + listBytes(stack.length, text);
    }
    if (this.#config.enableReturnData && step.returnData.length > 0) {
      const returnData = bytesHex(step.returnData);
      entry.returnData = returnData;
      bytes += PIECE.returnData + returnData.length;
    }
    if (this.#config.enableMemory && step.memory.length > 0) {
      const memory = memoryWords(step.memory);
      entry.memory = memory;
      bytes += PIECE.memory + listBytes(memory.length, memory.length * (QUOTED_WORD - 2));
    }
    // Only storage steps read state (asynchronously); every other step is logged at once.
    if (!this.#config.disableStorage && (step.op === SLOAD || step.op === SSTORE)) {
      return this.#touch(step).then((touched) => {
        if (touched !== undefined) {
          entry.storage = touched.snapshot();
          bytes += PIECE.storage + touched.size * STORAGE_SLOT + Math.max(0, touched.size - 1);
        }
        this.#append(entry, bytes, step);
      });
    }
    this.#append(entry, bytes, step);
  }

  /** Adds `entry` (its encoding `bytes` long, before the refund) to the logs. */
  #append(entry: StructLogEntry, bytes: number, step: OpcodeStep): void {
    const refund = Number(step.refund);
    if (refund !== 0) {
      entry.refund = refund;
      bytes += PIECE.refund + decimalLength(refund);
    }
    this.#grow(bytes + (this.#logs.length > 0 ? 1 : 0));
    this.#lastIndex = this.#logs.length;
    this.#logs.push(entry);
  }

  /** The stack as minimal 0x quantities, bottom to top. */
  #encodeStack(values: readonly bigint[]): string[] {
    const previous = this.#previousStack;
    const previousItems = this.#previousItems;
    const items = new Array<string>(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      items[i] = i < previous.length && previous[i] === value ? previousItems[i]! : `0x${value.toString(16)}`;
    }
    this.#previousStack = values;
    this.#previousItems = items;
    return items;
  }

  /** Records the slot an SLOAD reads (its current value) or an SSTORE writes (the new value). */
  async #touch(step: OpcodeStep): Promise<TouchedStorage | undefined> {
    const stack = step.stack;
    if (stack.length < (step.op === SLOAD ? 1 : 2)) return undefined;
    const slot = word(stack[stack.length - 1]!);
    const value = step.op === SLOAD ? await step.state.storage(step.address, slot) : word(stack[stack.length - 2]!);
    let touched = this.#storage.get(step.address);
    if (touched === undefined) this.#storage.set(step.address, (touched = new TouchedStorage()));
    touched.set(slot, value);
    return touched;
  }

  onFault(step: OpcodeStep, error: string): void {
    if (step !== this.#lastStep || this.#lastIndex < 0 || !failedBeforeExecuting(error)) return;
    const entry = this.#logs[this.#lastIndex]!;
    // `error` sits right after `depth`, so the entry is rebuilt rather than appended to.
    const { pc, op, gas, gasCost, depth, ...rest } = entry;
    this.#logs[this.#lastIndex] = { pc: pc!, op: op!, gas: gas!, gasCost: gasCost!, depth: depth!, error, ...rest };
    this.#lastIndex = -1;
    this.#grow(PIECE.error + Buffer.byteLength(JSON.stringify(error)));
  }

  /** Adds `bytes` to the encoded size, failing the trace once it passes the node's cap. */
  #grow(bytes: number): void {
    this.#bytes += bytes;
    const cap = this.#config.maxBytes ?? 0;
    if (cap > 0 && this.#bytes > cap) {
      this.#tooLarge = new TraceTooLargeError(cap);
      this.#logs.length = 0;
      this.#storage.clear();
      throw this.#tooLarge;
    }
  }

  onExit(frame: FrameEnd): void {
    if (frame.depth !== 0) return;
    this.#failed = frame.error !== undefined;
    this.#returnValue = frame.error === undefined || frame.reverted ? frame.output : new Uint8Array();
  }

  onTxEnd(end: TxEnd): void {
    this.#gas = end.gasUsed;
  }

  /** Bytes of `JSON.stringify(result().structLogs)`, tracked as steps are logged. */
  encodedBytes(): number {
    return this.#bytes;
  }

  result(): JsonValue {
    if (this.#tooLarge !== undefined) throw this.#tooLarge;
    return { gas: Number(this.#gas), failed: this.#failed, returnValue: bytesHex(this.#returnValue), structLogs: this.#logs };
  }
}
