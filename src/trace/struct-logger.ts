/**
 * The struct (opcode) logger: geth's default tracer when no `tracer` is named, also served as
 * `opcodeTracer`. Output and options follow the execution-apis opcode-tracer spec
 * (OpcodeTransactionTrace / StructLog) with geth's presence rules where the spec leaves room
 * (tracing-digest §3): `{gas, failed, returnValue, structLogs}`, one entry per executed opcode
 * with fields in the order `pc, op, gas, gasCost, depth, error, stack, returnData, memory,
 * storage, refund`.
 *
 * Each step is encoded to its JSON text the moment it is logged, with no object per step: the
 * result is one RawJson, already the text of the whole answer, which crosses threads as one
 * string and goes into the response as it is.
 */
import { RawJson } from '../util/raw-json.js';
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

const SLOAD = 0x54;
const SSTORE = 0x55;

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
  /** The members' encoding, until a slot changes. */
  #text: string | undefined;

  /** Records `value` for `slot`. */
  set(slot: Hex, value: Hex): void {
    const before = this.#values.get(slot);
    if (before === undefined) {
      let low = 0;
      let high = this.#keys.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (this.#keys[mid]! < slot) low = mid + 1;
        else high = mid;
      }
      this.#keys.splice(low, 0, slot);
    } else if (before === value) {
      return;
    }
    this.#values.set(slot, value);
    this.#text = undefined;
  }

  /** Every slot as the members of a JSON object, in key order: `"key":"value",…`. */
  text(): string {
    if (this.#text !== undefined) return this.#text;
    let text = '';
    for (let i = 0; i < this.#keys.length; i++) {
      const key = this.#keys[i]!;
      text += `${i === 0 ? '' : ','}"${key}":"${this.#values.get(key)!}"`;
    }
    return (this.#text = text);
  }
}

/** Memory as geth prints it: consecutive 32-byte words, each `"0x` + 64 hex digits + `"`, comma-separated. */
function memoryText(memory: Uint8Array): string {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength).toString('hex');
  const words = hex.length >>> 6;
  const parts = new Array<string>(words);
  for (let i = 0; i < words; i++) parts[i] = hex.slice(i * 64, i * 64 + 64);
  return `"0x${parts.join('","0x')}"`;
}

/** geth's struct logger. */
export class StructLogger implements Tracer {
  readonly #config: StructLoggerConfig;
  /** The JSON text of each logged step, in order. */
  readonly #entries: string[] = [];
  readonly #storage = new Map<Hex, TouchedStorage>();
  /** Bytes of the encoded `structLogs` array so far. */
  #bytes = 2;
  #tooLarge: TraceTooLargeError | undefined;
  /** The last step seen, where its entry sits in #entries (-1 when it was not logged), and where `error` would go in it. */
  #lastStep: OpcodeStep | undefined;
  #lastIndex = -1;
  #lastHeadLength = 0;
  /**
   * The previous step's stack and, per depth i, the text of its items 0..i: most of a stack
   * survives a step, so only the items above the unchanged part are encoded again.
   */
  #previousStack: readonly bigint[] = [];
  #previousPrefixes: string[] = [];
  /** The return data buffer last encoded and its text (the buffer stays the same for many steps). */
  #returnData: Uint8Array | undefined;
  #returnDataText = '';
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
    if (this.#config.limit > 0 && this.#entries.length >= this.#config.limit) return;
    // geth counts the transaction's own frame as depth 1.
    const head = `{"pc":${step.pc},"op":"${step.opName}","gas":${step.gas},"gasCost":${step.cost},"depth":${step.depth + 1}`;
    let tail = '';
    if (!this.#config.disableStack) tail += `,"stack":[${this.#stackText(step.stack)}]`;
    if (this.#config.enableReturnData && step.returnData.length > 0) tail += `,"returnData":"${this.#returnDataHex(step.returnData)}"`;
    if (this.#config.enableMemory && step.memory.length > 0) tail += `,"memory":[${memoryText(step.memory)}]`;
    // Only storage steps read state (asynchronously); every other step is logged at once.
    if (!this.#config.disableStorage && (step.op === SLOAD || step.op === SSTORE)) {
      return this.#touch(step).then((touched) => {
        this.#append(head, touched === undefined ? tail : `${tail},"storage":{${touched.text()}}`, step);
      });
    }
    this.#append(head, tail, step);
  }

  /** Adds the entry `head` + `tail` (before the refund) to the logs. */
  #append(head: string, tail: string, step: OpcodeStep): void {
    const entry = step.refund === 0n ? `${head}${tail}}` : `${head}${tail},"refund":${step.refund}}`;
    this.#grow(entry.length + (this.#entries.length > 0 ? 1 : 0));
    this.#lastIndex = this.#entries.length;
    this.#lastHeadLength = head.length;
    this.#entries.push(entry);
  }

  /** The stack as minimal 0x quantities, bottom to top, comma-separated. */
  #stackText(values: readonly bigint[]): string {
    const previous = this.#previousStack;
    const prefixes = this.#previousPrefixes;
    let kept = 0;
    const common = Math.min(values.length, previous.length);
    while (kept < common && previous[kept] === values[kept]) kept++;
    prefixes.length = kept;
    for (let i = kept; i < values.length; i++) {
      prefixes.push(i === 0 ? `"0x${values[i]!.toString(16)}"` : `${prefixes[i - 1]!},"0x${values[i]!.toString(16)}"`);
    }
    this.#previousStack = values;
    return values.length === 0 ? '' : prefixes[values.length - 1]!;
  }

  /** `returnData` as hex, re-encoded only when the frame's buffer changed. */
  #returnDataHex(returnData: Uint8Array): string {
    if (returnData !== this.#returnData) {
      this.#returnData = returnData;
      this.#returnDataText = bytesHex(returnData);
    }
    return this.#returnDataText;
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
    // `error` sits right after `depth`, inside the entry already encoded.
    const entry = this.#entries[this.#lastIndex]!;
    const field = `,"error":${JSON.stringify(error)}`;
    this.#entries[this.#lastIndex] = `${entry.slice(0, this.#lastHeadLength)}${field}${entry.slice(this.#lastHeadLength)}`;
    this.#lastIndex = -1;
    this.#grow(field.length);
  }

  /** Adds `bytes` to the encoded size, failing the trace once it passes the node's cap. */
  #grow(bytes: number): void {
    this.#bytes += bytes;
    const cap = this.#config.maxBytes ?? 0;
    if (cap > 0 && this.#bytes > cap) {
      this.#tooLarge = new TraceTooLargeError(cap);
      this.#entries.length = 0;
      this.#storage.clear();
      this.#previousPrefixes = [];
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

  /** Bytes of the encoded `structLogs` array, tracked as steps are logged. */
  encodedBytes(): number {
    return this.#bytes;
  }

  /** The whole answer as JSON text: `{gas, failed, returnValue, structLogs}`. */
  result(): JsonValue {
    if (this.#tooLarge !== undefined) throw this.#tooLarge;
    return new RawJson(
      `{"gas":${this.#gas},"failed":${this.#failed},"returnValue":"${bytesHex(this.#returnValue)}","structLogs":[${this.#entries.join(',')}]}`,
    );
  }
}
