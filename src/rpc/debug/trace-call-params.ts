/**
 * Decoding of what debug_traceCall's third argument, geth's TraceCallConfig, adds to a
 * TraceConfig: `stateOverrides` (eth_call's format), `blockOverrides` and `txIndex`. Keys
 * match case-insensitively and unknown keys are ignored, as Go's JSON decoder does.
 */
import { invalidArgument, RpcError } from '../jsonrpc/index.js';
import type { StateOverrides } from '../eth/backend.js';
import type { BlockOverrides } from '../../evm/block-context.js';
import { parseAddress, parseHash, parseQuantity, parseStateOverrides, parseUint64 } from '../eth/params.js';

/** The TraceCallConfig fields beyond TraceConfig. */
export interface TraceCallExtras {
  readonly stateOverrides: StateOverrides | undefined;
  readonly blockOverrides: BlockOverrides;
  /** Trace on the state before this transaction of the block (after the ones before it). */
  readonly txIndex: number | undefined;
}

function lowerCaseFields(value: unknown): Map<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return new Map();
  return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The first present value among `keys` (lower-case), or undefined. */
function field(fields: Map<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) {
    const value = fields.get(key);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/**
 * geth's BlockOverrides. Current names and the older spellings geth used before v1.14
 * (`coinbase`, `random`, `baseFee`) are both read. `difficulty` is accepted and has no effect
 * after the merge (DIFFICULTY reads prevRandao); `beaconRoot` and `withdrawals` are refused
 * as geth refuses them for this method.
 */
export function parseBlockOverrides(value: unknown, index: number): BlockOverrides {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(index, `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go struct field TraceCallConfig.blockOverrides of type override.BlockOverrides`);
  }
  const fields = lowerCaseFields(value);
  if (field(fields, 'beaconroot') !== undefined) throw RpcError.server('block override "beaconRoot" is not supported for this RPC method');
  if (field(fields, 'withdrawals') !== undefined) throw RpcError.server('block override "withdrawals" is not supported for this RPC method');
  const out: { -readonly [K in keyof BlockOverrides]: BlockOverrides[K] } = {};
  const number = field(fields, 'number');
  if (number !== undefined) out.number = parseQuantity(number, index);
  const difficulty = field(fields, 'difficulty');
  if (difficulty !== undefined) parseQuantity(difficulty, index);
  const time = field(fields, 'time');
  if (time !== undefined) out.time = parseUint64(time, index);
  const gasLimit = field(fields, 'gaslimit');
  if (gasLimit !== undefined) out.gasLimit = parseUint64(gasLimit, index);
  const feeRecipient = field(fields, 'feerecipient', 'coinbase');
  if (feeRecipient !== undefined) out.feeRecipient = parseAddress(feeRecipient, index);
  const prevRandao = field(fields, 'prevrandao', 'random');
  if (prevRandao !== undefined) out.prevRandao = parseHash(prevRandao, index);
  const baseFee = field(fields, 'basefeepergas', 'basefee');
  if (baseFee !== undefined) out.baseFee = parseQuantity(baseFee, index);
  const blobBaseFee = field(fields, 'blobbasefee');
  if (blobBaseFee !== undefined) out.blobBaseFee = parseQuantity(blobBaseFee, index);
  return out;
}

/** geth's `txIndex` (hexutil.Uint: a hex string). */
function parseTxIndex(value: unknown, index: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go struct field TraceCallConfig.txIndex of type hexutil.Uint');
  const parsed = parseUint64(value, index);
  if (parsed > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidArgument(index, 'hex number > 64 bits');
  return Number(parsed);
}

/** Reads the TraceCallConfig fields beyond TraceConfig (absent = none). */
export function parseTraceCallExtras(value: unknown, index: number): TraceCallExtras {
  const fields = lowerCaseFields(value);
  return {
    stateOverrides: parseStateOverrides(field(fields, 'stateoverrides'), index),
    blockOverrides: parseBlockOverrides(field(fields, 'blockoverrides'), index),
    txIndex: parseTxIndex(field(fields, 'txindex'), index),
  };
}
