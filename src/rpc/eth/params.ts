/**
 * Decoding of eth_ method arguments with geth's error texts: every failure is -32602
 * "invalid argument N: <reason>" where the reason is what geth's JSON decoding reports.
 */
import { invalidArgument, RpcError } from '../jsonrpc/index.js';
import type { AccessListEntry, AccountOverride, CallRequest, StateOverrides } from './backend.js';
import { hexToBytes, isHexDigits } from './hex.js';
import type { BlockId, BlockNumberOrTag, BlockTag } from '../../provider/index.js';

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);
const MAX_INT64 = (1n << 63n) - 1n;

/** Reason text of a malformed hex quantity, or undefined when `text` is a valid one (hexutil's rules). */
function quantityProblem(text: string, maxBits: number): string | undefined {
  if (text === '') return 'empty hex string';
  if (!text.startsWith('0x') && !text.startsWith('0X')) return 'hex string without 0x prefix';
  const digits = text.slice(2);
  if (digits === '') return 'hex string "0x"';
  if (digits.length > 1 && digits[0] === '0') return 'hex number with leading zero digits';
  if (!isHexDigits(digits)) return 'invalid hex string';
  if (digits.length * 4 > maxBits && BigInt(text) >= 1n << BigInt(maxBits)) return `hex number > ${maxBits} bits`;
  return undefined;
}

/** A hex quantity up to 256 bits (hexutil.Big). */
export function parseQuantity(value: unknown, index: number, goType = 'hexutil.Big'): bigint {
  if (typeof value !== 'string') throw invalidArgument(index, `json: cannot unmarshal non-string into Go value of type ${goType}`);
  const problem = quantityProblem(value, 256);
  if (problem !== undefined) throw invalidArgument(index, problem);
  return BigInt(value);
}

/** A hex quantity up to 64 bits (hexutil.Uint64). */
export function parseUint64(value: unknown, index: number): bigint {
  if (typeof value !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go value of type hexutil.Uint64');
  const problem = quantityProblem(value, 64);
  if (problem !== undefined) throw invalidArgument(index, problem);
  return BigInt(value);
}

/** Fixed-length hex (common.Address, common.Hash): geth's exact texts for each mistake. */
function parseFixed(value: unknown, index: number, bytes: number, goType: string): Uint8Array {
  if (typeof value !== 'string') throw invalidArgument(index, `json: cannot unmarshal non-string into Go value of type ${goType}`);
  if (!value.startsWith('0x') && !value.startsWith('0X')) {
    throw invalidArgument(index, `json: cannot unmarshal hex string without 0x prefix into Go value of type ${goType}`);
  }
  const digits = value.slice(2);
  if (digits.length !== bytes * 2) throw invalidArgument(index, `hex string has length ${digits.length}, want ${bytes * 2} for ${goType}`);
  if (!isHexDigits(digits)) throw invalidArgument(index, `json: cannot unmarshal invalid hex string into Go value of type ${goType}`);
  return hexToBytes(value.toLowerCase());
}

/** A 20-byte address. */
export function parseAddress(value: unknown, index: number): Uint8Array {
  return parseFixed(value, index, 20, 'common.Address');
}

/** A 32-byte hash. */
export function parseHash(value: unknown, index: number): Uint8Array {
  return parseFixed(value, index, 32, 'common.Hash');
}

/** Arbitrary 0x bytes (hexutil.Bytes). */
export function parseData(value: unknown, index: number): Uint8Array {
  const goType = 'hexutil.Bytes';
  if (typeof value !== 'string') throw invalidArgument(index, `json: cannot unmarshal non-string into Go value of type ${goType}`);
  if (!value.startsWith('0x') && !value.startsWith('0X')) {
    throw invalidArgument(index, `json: cannot unmarshal hex string without 0x prefix into Go value of type ${goType}`);
  }
  const digits = value.slice(2);
  if (digits.length % 2 !== 0) throw invalidArgument(index, `json: cannot unmarshal hex string of odd length into Go value of type ${goType}`);
  if (!isHexDigits(digits)) throw invalidArgument(index, `json: cannot unmarshal invalid hex string into Go value of type ${goType}`);
  return hexToBytes(value);
}

/**
 * A storage slot as geth's eth_getStorageAt takes it: hex up to 32 bytes, left-padded
 * (odd lengths allowed), returned as 32 bytes.
 */
export function parseStorageSlot(value: unknown, index: number): Uint8Array {
  if (typeof value !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go value of type string');
  let digits = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
  if (digits.length > 64) throw invalidArgument(index, 'hex string too long, want at most 32 bytes');
  if (!isHexDigits(digits)) throw invalidArgument(index, 'invalid hex string');
  digits = digits.padStart(64, '0');
  return new Uint8Array(Buffer.from(digits, 'hex'));
}

/** A block number or tag (rpc.BlockNumber). */
export function parseBlockNumber(value: unknown, index: number): BlockNumberOrTag {
  if (typeof value === 'string' && TAGS.has(value)) return { kind: 'tag', tag: value as BlockTag };
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go value of type rpc.BlockNumber');
  const problem = quantityProblem(text, 64);
  if (problem !== undefined) throw invalidArgument(index, problem);
  const number = BigInt(text);
  if (number > MAX_INT64) throw invalidArgument(index, 'block number larger than int64');
  if (number > BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'number', number: Number.MAX_SAFE_INTEGER };
  return { kind: 'number', number: Number(number) };
}

/** A block number, tag, or EIP-1898 object `{blockNumber}` / `{blockHash, requireCanonical}`. */
export function parseBlockNumberOrHash(value: unknown, index: number): BlockId {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    // geth also accepts a bare 32-byte hash string here.
    if (typeof value === 'string' && value.length === 66 && value.startsWith('0x')) {
      return { kind: 'hash', hash: parseHash(value, index), requireCanonical: false };
    }
    return parseBlockNumber(value, index);
  }
  const fields = value as Record<string, unknown>;
  const hasNumber = fields['blockNumber'] !== undefined && fields['blockNumber'] !== null;
  const hasHash = fields['blockHash'] !== undefined && fields['blockHash'] !== null;
  if (hasNumber && hasHash) throw invalidArgument(index, 'cannot specify both BlockHash and BlockNumber, choose one or the other');
  if (hasNumber) return parseBlockNumber(fields['blockNumber'], index);
  if (hasHash) {
    const requireCanonical = fields['requireCanonical'];
    if (requireCanonical !== undefined && typeof requireCanonical !== 'boolean') {
      throw invalidArgument(index, 'json: cannot unmarshal non-bool into Go struct field .requireCanonical of type bool');
    }
    return { kind: 'hash', hash: parseHash(fields['blockHash'], index), requireCanonical: requireCanonical === true };
  }
  throw RpcError.server('invalid arguments; neither block nor hash specified');
}

/** A boolean argument (full transactions flag). */
export function parseBool(value: unknown, index: number): boolean {
  if (typeof value !== 'boolean') throw invalidArgument(index, 'json: cannot unmarshal non-bool into Go value of type bool');
  return value;
}

function optional<T>(fields: Record<string, unknown>, key: string, parse: (value: unknown) => T): T | undefined {
  const value = fields[key];
  return value === undefined || value === null ? undefined : parse(value);
}

function parseAccessList(value: unknown, index: number): AccessListEntry[] {
  if (!Array.isArray(value)) throw invalidArgument(index, 'json: cannot unmarshal non-array into Go struct field TransactionArgs.accessList of type types.AccessList');
  return value.map((entry: unknown) => {
    if (entry === null || typeof entry !== 'object') throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type types.AccessTuple');
    const fields = entry as Record<string, unknown>;
    const keys = fields['storageKeys'] ?? [];
    if (!Array.isArray(keys)) throw invalidArgument(index, 'json: cannot unmarshal non-array into Go struct field AccessTuple.storageKeys of type []common.Hash');
    return { address: parseAddress(fields['address'], index), storageKeys: keys.map((key: unknown) => parseHash(key, index)) };
  });
}

/** A call object (geth's TransactionArgs): `input` and `data` may both appear only when equal. */
export function parseCallRequest(value: unknown, index: number): CallRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type ethapi.TransactionArgs');
  }
  const fields = value as Record<string, unknown>;
  const input = optional(fields, 'input', (v) => parseData(v, index));
  const data = optional(fields, 'data', (v) => parseData(v, index));
  if (input !== undefined && data !== undefined && Buffer.compare(input, data) !== 0) {
    throw RpcError.server('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data');
  }
  if (fields['gasPrice'] !== undefined && fields['gasPrice'] !== null && (fields['maxFeePerGas'] != null || fields['maxPriorityFeePerGas'] != null)) {
    throw RpcError.server('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  const request: {
    -readonly [K in keyof CallRequest]: CallRequest[K];
  } = {};
  const from = optional(fields, 'from', (v) => parseAddress(v, index));
  if (from !== undefined) request.from = from;
  const to = optional(fields, 'to', (v) => parseAddress(v, index));
  if (to !== undefined) request.to = to;
  const gas = optional(fields, 'gas', (v) => parseUint64(v, index));
  if (gas !== undefined) request.gas = gas;
  const gasPrice = optional(fields, 'gasPrice', (v) => parseQuantity(v, index));
  if (gasPrice !== undefined) request.gasPrice = gasPrice;
  const maxFee = optional(fields, 'maxFeePerGas', (v) => parseQuantity(v, index));
  if (maxFee !== undefined) request.maxFeePerGas = maxFee;
  const maxPriority = optional(fields, 'maxPriorityFeePerGas', (v) => parseQuantity(v, index));
  if (maxPriority !== undefined) request.maxPriorityFeePerGas = maxPriority;
  const callValue = optional(fields, 'value', (v) => parseQuantity(v, index));
  if (callValue !== undefined) request.value = callValue;
  const nonce = optional(fields, 'nonce', (v) => parseUint64(v, index));
  if (nonce !== undefined) request.nonce = nonce;
  if (input !== undefined || data !== undefined) request.input = (input ?? data)!;
  const accessList = optional(fields, 'accessList', (v) => parseAccessList(v, index));
  if (accessList !== undefined) request.accessList = accessList;
  return request;
}

function parseSlotMap(value: unknown, index: number): Map<string, Uint8Array> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(index, 'json: cannot unmarshal non-object into Go struct field OverrideAccount.state of type map[common.Hash]common.Hash');
  }
  const slots = new Map<string, Uint8Array>();
  for (const [slot, word] of Object.entries(value as Record<string, unknown>)) {
    const key = Buffer.from(parseHash(slot, index)).toString('hex');
    slots.set(`0x${key}`, parseHash(word, index));
  }
  return slots;
}

/** geth's state override set: address → {balance, nonce, code, state | stateDiff}. */
export function parseStateOverrides(value: unknown, index: number): StateOverrides | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type ethapi.StateOverride');
  }
  const overrides = new Map<string, AccountOverride>();
  for (const [addressText, raw] of Object.entries(value as Record<string, unknown>)) {
    const address = `0x${Buffer.from(parseAddress(addressText, index)).toString('hex')}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type ethapi.OverrideAccount');
    }
    const fields = raw as Record<string, unknown>;
    const account: { -readonly [K in keyof AccountOverride]: AccountOverride[K] } = {};
    const balance = optional(fields, 'balance', (v) => parseQuantity(v, index));
    if (balance !== undefined) account.balance = balance;
    const nonce = optional(fields, 'nonce', (v) => parseUint64(v, index));
    if (nonce !== undefined) account.nonce = nonce;
    const code = optional(fields, 'code', (v) => parseData(v, index));
    if (code !== undefined) account.code = code;
    const state = optional(fields, 'state', (v) => parseSlotMap(v, index));
    const stateDiff = optional(fields, 'stateDiff', (v) => parseSlotMap(v, index));
    if (state !== undefined && stateDiff !== undefined) {
      throw RpcError.server(`account ${address} has both 'state' and 'stateDiff'`);
    }
    if (state !== undefined) account.state = state;
    if (stateDiff !== undefined) account.stateDiff = stateDiff;
    overrides.set(address, account);
  }
  return overrides;
}

/** A transaction index within a block (hexutil.Uint). */
export function parseIndex(value: unknown, index: number): number {
  if (typeof value !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go value of type hexutil.Uint');
  const problem = quantityProblem(value, 64);
  if (problem !== undefined) throw invalidArgument(index, problem);
  const number = BigInt(value);
  // Past any block's transaction count: an index this large finds nothing, as in geth.
  return number > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(number);
}
