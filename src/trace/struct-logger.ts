/**
 * The struct (opcode) logger: geth's default tracer when no `tracer` is named, also served as
 * `opcodeTracer`. Output and options follow the execution-apis opcode-tracer spec
 * (OpcodeTransactionTrace / StructLog) with geth's presence rules where the spec leaves room
 * (tracing-digest §3): `{gas, failed, returnValue, structLogs}`, one entry per executed opcode
 * with fields in the order `pc, op, gas, gasCost, depth, error, stack, returnData, memory,
 * storage, refund`.
 *
 * Each step is encoded to its JSON text the moment it is logged, as bytes in one buffer, with
 * no object per step: the result is one RawJson over those bytes, which a trace worker hands to
 * the main thread without a copy and the response takes as it is.
 */
import { RawJson } from '../util/raw-json.js';
import { TraceError } from './errors.js';
import { bytesHex, word } from './hex.js';
import { JsonBytes } from './json-bytes.js';
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

const COMMA = 0x2c;
const QUOTE = 0x22;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
/** The longest stack item: `,"0x` + 64 hex digits + `"`. */
const MAX_STACK_ITEM = 69;
/** Room for an entry's fixed fields besides the op name: keys, five uint64s, braces. */
const ENTRY_HEAD = 160;

/** geth's struct logger. */
export class StructLogger implements Tracer {
  readonly #config: StructLoggerConfig;
  /** `[` and the text of each logged step, comma-separated (the closing `]` comes with the result). */
  readonly #out = new JsonBytes();
  #logged = 0;
  readonly #storage = new Map<Hex, TouchedStorage>();
  #tooLarge: TraceTooLargeError | undefined;
  /** The last step seen, whether it was logged, and where `error` would go in its entry. */
  #lastStep: OpcodeStep | undefined;
  #lastLogged = false;
  #lastHeadEnd = 0;
  /**
   * The last logged stack and where each of its items starts in #out (#stackEnd: where the
   * last one ends): most of a stack survives a step, and its bytes are copied rather than
   * encoded again.
   */
  #stack: readonly bigint[] = [];
  #stackAt: number[] = [];
  #nextStackAt: number[] = [];
  #stackEnd = 0;
  #gas = 0n;
  #failed = false;
  #returnValue: Uint8Array = new Uint8Array();

  constructor(config: StructLoggerConfig) {
    this.#config = config;
    this.#out.reserve(1);
    this.#out.byte(0x5b);
  }

  onOpcode(step: OpcodeStep): void | Promise<void> {
    this.#lastStep = step;
    this.#lastLogged = false;
    if (this.#tooLarge !== undefined) return;
    if (this.#config.limit > 0 && this.#logged >= this.#config.limit) return;
    const out = this.#out;
    out.reserve(ENTRY_HEAD + step.opName.length);
    if (this.#logged > 0) out.byte(COMMA);
    out.ascii('{"pc":');
    out.uint(step.pc);
    out.ascii(',"op":"');
    out.ascii(step.opName);
    out.ascii('","gas":');
    out.uint(step.gas);
    out.ascii(',"gasCost":');
    out.uint(step.cost);
    // geth counts the transaction's own frame as depth 1.
    out.ascii(',"depth":');
    out.uint(step.depth + 1);
    this.#lastHeadEnd = out.length;
    if (!this.#config.disableStack) this.#writeStack(step.stack);
    if (this.#config.enableReturnData && step.returnData.length > 0) {
      out.reserve(20 + step.returnData.length * 2);
      out.ascii(',"returnData":"0x');
      out.hex(step.returnData);
      out.byte(QUOTE);
    }
    if (this.#config.enableMemory && step.memory.length > 0) {
      out.reserve(16 + (step.memory.length >>> 5) * MAX_STACK_ITEM);
      out.ascii(',"memory":[');
      out.words(step.memory);
      out.byte(CLOSE_BRACKET);
    }
    // Only storage steps read state (asynchronously); every other step is logged at once.
    if (!this.#config.disableStorage && (step.op === SLOAD || step.op === SSTORE)) {
      return this.#touch(step).then((touched) => {
        if (touched !== undefined) {
          const members = touched.text();
          out.reserve(16 + members.length);
          out.ascii(',"storage":{');
          out.ascii(members);
          out.byte(CLOSE_BRACE);
        }
        this.#finish(step);
      });
    }
    this.#finish(step);
  }

  /** Closes the entry being written, after the refund, and holds the trace to the cap. */
  #finish(step: OpcodeStep): void {
    const out = this.#out;
    out.reserve(32);
    if (step.refund !== 0n) {
      out.ascii(',"refund":');
      out.uint(step.refund);
    }
    out.byte(CLOSE_BRACE);
    this.#logged++;
    this.#lastLogged = true;
    this.#check();
  }

  /** Writes `,"stack":[…]`, the items as minimal 0x quantities, bottom to top. */
  #writeStack(values: readonly bigint[]): void {
    const out = this.#out;
    const previous = this.#stack;
    const previousAt = this.#stackAt;
    let kept = 0;
    const common = Math.min(values.length, previous.length);
    while (kept < common && previous[kept] === values[kept]) kept++;
    out.reserve(12 + values.length * MAX_STACK_ITEM);
    out.ascii(',"stack":[');
    const at = this.#nextStackAt;
    at.length = values.length;
    if (kept > 0) {
      // The unchanged bottom of the stack, copied from the last entry with its commas.
      const from = previousAt[0]!;
      const to = kept < previous.length ? previousAt[kept]! - 1 : this.#stackEnd;
      const shift = out.length - from;
      for (let i = 0; i < kept; i++) at[i] = previousAt[i]! + shift;
      out.repeat(from, to);
    }
    for (let i = kept; i < values.length; i++) {
      if (i > 0) out.byte(COMMA);
      at[i] = out.length;
      out.quantity(values[i]!);
    }
    this.#stackEnd = out.length;
    out.byte(CLOSE_BRACKET);
    this.#stack = values;
    this.#nextStackAt = previousAt;
    this.#stackAt = at;
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
    if (step !== this.#lastStep || !this.#lastLogged || !failedBeforeExecuting(error)) return;
    // `error` sits right after `depth`, inside the entry already written; what follows moves.
    this.#out.insert(this.#lastHeadEnd, `,"error":${JSON.stringify(error)}`);
    this.#lastLogged = false;
    this.#stack = [];
    this.#check();
  }

  /** Fails the trace once the encoded struct logs pass the node's cap, and lets their memory go. */
  #check(): void {
    const cap = this.#config.maxBytes ?? 0;
    if (cap > 0 && this.encodedBytes() > cap) {
      this.#tooLarge = new TraceTooLargeError(cap);
      this.#out.clear();
      this.#storage.clear();
      this.#stack = [];
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

  /** Bytes of the encoded `structLogs` array (with its closing bracket), tracked as steps are logged. */
  encodedBytes(): number {
    return this.#out.length + 1;
  }

  /** The whole answer as JSON text: `{gas, failed, returnValue, structLogs}`. */
  result(): JsonValue {
    if (this.#tooLarge !== undefined) throw this.#tooLarge;
    return new RawJson({
      head: `{"gas":${this.#gas},"failed":${this.#failed},"returnValue":"${bytesHex(this.#returnValue)}","structLogs":`,
      body: this.#out.view(),
      tail: ']}',
    });
  }
}
