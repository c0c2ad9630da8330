/**
 * geth's `erc7562Tracer`: the ERC-4337 validation tracer. A callTracer-like frame tree where
 * each frame also records what ERC-7562's validation rules inspect: storage slots read and
 * written (persistent and transient), EXTCODE* targets, opcode counts, the code size of every
 * contract a CALL or EXTCODE* named, and whether the frame ran out of gas; the top frame adds
 * every KECCAK256 preimage of the transaction.
 */
import { revertReason } from '../evm/revert-reason.js';
import { callLogJson, clearFailedLogs, frameHeadJson, type FrameCore } from './call-tracer.js';
import { booleanOption, type TracerConfig } from './config.js';
import { TracerConfigError } from './errors.js';
import { bytesHex, memorySlice, quantity, word, wordAddress } from './hex.js';
import type { FrameEnd, FrameStart, Hex, JsonValue, OpcodeStep, TraceLog, Tracer, TxEnd, TxStart } from './types.js';

const KECCAK256 = 0x20;
const EXTCODESIZE = 0x3b;
const EXTCODECOPY = 0x3c;
const EXTCODEHASH = 0x3f;
const ISZERO = 0x15;
const SLOAD = 0x54;
const SSTORE = 0x55;
const GAS = 0x5a;
const TLOAD = 0x5c;
const TSTORE = 0x5d;
const RETURN = 0xf3;
const REVERT = 0xfd;
const CALL_OPCODES: ReadonlySet<number> = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const EXTCODE_OPCODES: ReadonlySet<number> = new Set([EXTCODESIZE, EXTCODECOPY, EXTCODEHASH]);

/** Stack items kept from the previous opcode unless configured otherwise. */
const DEFAULT_STACK_TOP_ITEMS = 3;
/** A KECCAK256 preimage reaching further than this past memory is not copied (geth's padding limit). */
const MAX_PREIMAGE_PADDING = 1024n * 1024n;
const UINT64_MASK = (1n << 64n) - 1n;
const INT64_MAX = (1n << 63n) - 1n;

/** Options of erc7562Tracer (geth's `erc7562TracerConfig`). */
export interface Erc7562TracerConfig {
  /** How many stack items of the previous opcode are kept (only the top one is read). */
  stackTopItemsSize: number;
  /** Opcodes left out of `usedOpcodes`. */
  ignoredOpcodes: ReadonlySet<number>;
  withLog: boolean;
}

/** PUSH0..SWAP16 and the plain arithmetic/comparison opcodes: not interesting to the validation rules. */
function defaultIgnoredOpcodes(): Set<number> {
  const ignored = new Set<number>();
  for (let op = 0x5f; op <= 0x9f; op++) ignored.add(op);
  for (const op of [0x50, 0x01, 0x03, 0x02, 0x04, 0x14, 0x10, 0x11, 0x12, 0x13, 0x1b, 0x1c, 0x16, 0x17, 0x19, ISZERO]) ignored.add(op);
  return ignored;
}

const STRUCT = 'erc7562TracerConfig';

function jsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

function stackTopItemsOption(config: TracerConfig): number {
  const value = config.stackTopItemsSize;
  if (value === undefined || value === null) return DEFAULT_STACK_TOP_ITEMS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TracerConfigError(`json: cannot unmarshal ${jsonKind(value)} into Go struct field ${STRUCT}.stackTopItemsSize of type int`);
  }
  return value === 0 ? DEFAULT_STACK_TOP_ITEMS : value;
}

function ignoredOpcodesOption(config: TracerConfig): Set<number> {
  const value = config.ignoredOpcodes;
  if (value === undefined || value === null) return defaultIgnoredOpcodes();
  if (!Array.isArray(value)) {
    throw new TracerConfigError(`json: cannot unmarshal ${jsonKind(value)} into Go struct field ${STRUCT}.ignoredOpcodes of type []hexutil.Uint64`);
  }
  const ignored = new Set<number>();
  for (const item of value) {
    if (typeof item !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/.test(item)) {
      throw new TracerConfigError(`json: cannot unmarshal ${JSON.stringify(item)} into Go struct field ${STRUCT}.ignoredOpcodes of type hexutil.Uint64`);
    }
    // geth narrows each entry to an opcode byte.
    ignored.add(Number(BigInt(item) & 0xffn));
  }
  return ignored;
}

/** Parses erc7562Tracer's `tracerConfig` (an explicit `ignoredOpcodes` replaces the default list). */
export function erc7562TracerConfig(config: TracerConfig): Erc7562TracerConfig {
  return {
    stackTopItemsSize: stackTopItemsOption(config),
    ignoredOpcodes: ignoredOpcodesOption(config),
    withLog: booleanOption(config, 'withLog', STRUCT),
  };
}

/** Storage slots a frame touched. */
interface AccessedSlots {
  /** Slot → its value at the frame's first SLOAD of it (only when the frame had not written it first). */
  reads: Map<Hex, Hex[]>;
  writes: Map<Hex, number>;
  transientReads: Map<Hex, number>;
  transientWrites: Map<Hex, number>;
}

/** One frame of the validation trace. */
interface ValidationFrame extends FrameCore {
  accessedSlots: AccessedSlots;
  extCodeAccessInfo: Hex[];
  usedOpcodes: Map<number, number>;
  /** Contract → its code size when the frame first named it, and the opcode that did. */
  contractSize: Map<Hex, { contractSize: number; opcode: number }>;
  outOfGas: boolean;
  calls: ValidationFrame[];
}

/** The previous opcode and the top of its stack (top first), for the rules that look one step back. */
interface PreviousOpcode {
  op: number;
  stackTop: bigint[];
}

function newFrame(start: FrameStart, gas: bigint, to: Hex | undefined): ValidationFrame {
  return {
    type: start.type,
    from: start.from,
    gas,
    gasUsed: 0n,
    to,
    input: start.input,
    output: undefined,
    error: undefined,
    revertReason: undefined,
    logs: [],
    value: start.value,
    accessedSlots: { reads: new Map(), writes: new Map(), transientReads: new Map(), transientWrites: new Map() },
    extCodeAccessInfo: [],
    usedOpcodes: new Map(),
    contractSize: new Map(),
    outOfGas: false,
    calls: [],
  };
}

/** Fills a frame's outcome as callTracer does: output on success or revert, `to` dropped for failed creates. */
function finishFrame(frame: ValidationFrame, end: FrameEnd): void {
  const isCreate = frame.type === 'CREATE' || frame.type === 'CREATE2';
  if (end.error === undefined) {
    frame.output = end.output;
    if (isCreate) frame.to = end.createdAddress ?? frame.to;
    return;
  }
  frame.error = end.error;
  if (isCreate) frame.to = undefined;
  if (!end.reverted || end.output.length === 0) return;
  frame.output = end.output;
  frame.revertReason = revertReason(end.output);
}

/** Whether geth counts `error` as running out of gas (its ErrOutOfGas, wrapped or not, and code-store OOG). */
function isOutOfGas(error: string): boolean {
  return error === 'out of gas' || error.startsWith('out of gas:') || error === 'contract creation code storage out of gas';
}

function increment<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** A map as Go's encoder writes it: keys sorted as strings. */
function sortedObject<K>(map: ReadonlyMap<K, JsonValue>, keyOf: (key: K) => string): { [key: string]: JsonValue } {
  const entries = [...map].map(([key, value]): [string, JsonValue] => [keyOf(key), value]);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

const asIs = (key: Hex): string => key;

/** A frame as geth's JSON, in its field order; `keccak` only for the top frame. */
function frameJson(frame: ValidationFrame, keccak: Hex[] | undefined): { [key: string]: JsonValue } {
  const out = frameHeadJson(frame);
  if (frame.logs.length > 0) out.logs = frame.logs.map(callLogJson);
  if (frame.value !== undefined) out.value = quantity(frame.value);
  const slots = frame.accessedSlots;
  out.accessedSlots = {
    reads: sortedObject(slots.reads, asIs),
    writes: sortedObject(slots.writes, asIs),
    transientReads: sortedObject(slots.transientReads, asIs),
    transientWrites: sortedObject(slots.transientWrites, asIs),
  };
  out.extCodeAccessInfo = frame.extCodeAccessInfo;
  out.usedOpcodes = sortedObject(frame.usedOpcodes, (op) => quantity(BigInt(op)));
  out.contractSize = sortedObject(frame.contractSize, asIs);
  out.outOfGas = frame.outOfGas;
  if (keccak !== undefined && keccak.length > 0) out.keccak = keccak;
  if (frame.calls.length > 0) out.calls = frame.calls.map((child) => frameJson(child, undefined));
  out.type = frame.type;
  return out;
}

/** geth's erc7562Tracer. */
export class Erc7562Tracer implements Tracer {
  /** Open frames, outermost first; the finished top frame stays at [0]. */
  private readonly stack: ValidationFrame[] = [];
  /** KECCAK256 preimages of the whole transaction, as hex. */
  private readonly preimages = new Set<Hex>();
  private previous: PreviousOpcode | undefined;
  private tx: TxStart | undefined;

  constructor(readonly config: Erc7562TracerConfig) {}

  onTxStart(tx: TxStart): void {
    this.tx = tx;
  }

  onEnter(start: FrameStart): void {
    if (start.depth === 0) {
      this.stack.push(newFrame(start, this.tx?.gasLimit ?? start.gas, start.to ?? this.tx?.createdAddress));
      return;
    }
    this.stack.push(newFrame(start, start.gas, start.to));
  }

  onExit(end: FrameEnd): void {
    if (end.depth === 0) {
      const top = this.stack[0];
      if (top !== undefined) finishFrame(top, end);
      return;
    }
    if (this.stack.length <= 1) return;
    const frame = this.stack.pop()!;
    frame.gasUsed = end.gasUsed;
    if (end.error !== undefined && isOutOfGas(end.error)) frame.outOfGas = true;
    finishFrame(frame, end);
    this.stack[this.stack.length - 1]!.calls.push(frame);
  }

  onLog(log: TraceLog): void {
    if (!this.config.withLog) return;
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return;
    frame.logs.push({ address: log.address, topics: log.topics, data: log.data, index: log.index, position: frame.calls.length });
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return;
    const op = step.op;
    // RETURN and REVERT end the frame: what came before them is not checked against what follows.
    if (op === RETURN || op === REVERT) this.previous = undefined;
    if (this.previous !== undefined) this.noteExtCodeAccess(op, this.previous, frame);
    if (EXTCODE_OPCODES.has(op) || CALL_OPCODES.has(op)) await this.noteContractSize(step, frame);
    // GAS is only allowed right before a call ([OP-012]), so it is counted only when not followed by one.
    if (this.previous?.op === GAS && !CALL_OPCODES.has(op)) increment(frame.usedOpcodes, GAS);
    if (op !== GAS && !this.config.ignoredOpcodes.has(op)) increment(frame.usedOpcodes, op);
    await this.noteStorageAccess(step, frame);
    if (op === KECCAK256) this.notePreimage(step);
    this.previous = { op, stackTop: topItems(step.stack, this.config.stackTopItemsSize) };
  }

  /** [OP-051]: the address an EXTCODE* opcode read, unless it was `EXTCODESIZE` then `ISZERO`. */
  private noteExtCodeAccess(op: number, previous: PreviousOpcode, frame: ValidationFrame): void {
    if (!EXTCODE_OPCODES.has(previous.op)) return;
    if (previous.op === EXTCODESIZE && op === ISZERO) return;
    const target = previous.stackTop[0];
    if (target !== undefined) frame.extCodeAccessInfo.push(wordAddress(target));
  }

  /** [OP-041]: the code size of the contract a CALL-family or EXTCODE* opcode names, first time per frame. */
  private async noteContractSize(step: OpcodeStep, frame: ValidationFrame): Promise<void> {
    const position = EXTCODE_OPCODES.has(step.op) ? 0 : 1;
    const item = step.stack[step.stack.length - 1 - position];
    if (item === undefined) return;
    const address = wordAddress(item);
    if (frame.contractSize.has(address)) return;
    const code = await step.state.code(address);
    frame.contractSize.set(address, { contractSize: code.length, opcode: step.op });
  }

  private async noteStorageAccess(step: OpcodeStep, frame: ValidationFrame): Promise<void> {
    const op = step.op;
    if (op !== SLOAD && op !== SSTORE && op !== TLOAD && op !== TSTORE) return;
    const top = step.stack[step.stack.length - 1];
    if (top === undefined) return;
    const slot = word(top);
    const slots = frame.accessedSlots;
    if (op === SLOAD) {
      // The value before the user operation touched it: a slot written first is not a read.
      if (!slots.reads.has(slot) && !slots.writes.has(slot)) slots.reads.set(slot, [await step.state.storage(step.address, slot)]);
    } else if (op === SSTORE) increment(slots.writes, slot);
    else if (op === TLOAD) increment(slots.transientReads, slot);
    else increment(slots.transientWrites, slot);
  }

  private notePreimage(step: OpcodeStep): void {
    const stack = step.stack;
    if (stack.length < 2) return;
    // geth reads both operands as uint64 and then as int64; negative ones are skipped.
    const offset = stack[stack.length - 1]! & UINT64_MASK;
    const length = stack[stack.length - 2]! & UINT64_MASK;
    if (offset > INT64_MAX || length > INT64_MAX) return;
    if (offset + length - BigInt(step.memory.length) > MAX_PREIMAGE_PADDING) return;
    this.preimages.add(bytesHex(memorySlice(step.memory, offset, length)));
  }

  onTxEnd(end: TxEnd): void {
    const top = this.stack[0];
    if (top === undefined) return;
    top.gasUsed = end.gasUsed;
    if (this.config.withLog) clearFailedLogs(top, false);
  }

  result(): JsonValue {
    const top = this.stack[0];
    if (top === undefined) return null;
    // Byte order of the preimages equals the string order of their lower-case hex.
    const keccak = [...this.preimages].sort();
    return frameJson(top, keccak);
  }
}

/** The top `count` stack items, top first. */
function topItems(stack: readonly bigint[], count: number): bigint[] {
  const items: bigint[] = [];
  for (let i = 0; i < count && i < stack.length; i++) items.push(stack[stack.length - 1 - i]!);
  return items;
}
