/**
 * A decoder for the transaction that fills blocks: an EIP-1559 transfer (recipient, value, no
 * calldata, no access list). @ethereumjs spends about ten microseconds building a transaction
 * object, most of it in generic field handling; this reads the few fields straight from the
 * bytes. It accepts only encodings @ethereumjs accepts with the same values, and answers
 * undefined for anything else — any other shape, and every encoding @ethereumjs would refuse —
 * so that the caller decodes those with @ethereumjs and reports its exact error.
 */
import { SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util';

const FEE_MARKET_TX_TYPE = 2;
const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;
const EMPTY_STRING = 0x80;
const EMPTY_LIST = 0xc0;
const ADDRESS_HEADER = 0x80 + 20;

/**
 * The fields of a type-2 transfer, and where in its bytes the parts sender recovery needs sit:
 * the decoder allocates no message or signature, so a block's worth of decoded transfers stays
 * small while their senders are recovered.
 */
export interface TransferFields {
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gasLimit: bigint;
  /** Where the 20-byte recipient starts. */
  toStart: number;
  value: bigint;
  /** The signed fields (chain id through access list): the signing message is 0x02 ‖ rlp list of them. */
  signedStart: number;
  signedEnd: number;
  /** The value bytes of r and of s (each at most 32, no leading zero). */
  rStart: number;
  rEnd: number;
  sStart: number;
  sEnd: number;
  recoveryId: 0 | 1;
}

/** Where the value bytes of the scalar whose header byte is at `at` begin. */
function valueStart(raw: Uint8Array, at: number): number {
  return raw[at]! < 0x80 ? at : at + 1;
}

/** The end of the byte string at `at` when @ethereumjs accepts it as a numeric field; -1 otherwise. */
function scalarEnd(raw: Uint8Array, at: number, maxBytes: number): number {
  const b = raw[at];
  if (b === undefined) return -1;
  if (b < 0x80) return b === 0 ? -1 : at + 1; // a lone 0x00 is a leading zero
  const length = b - 0x80;
  if (length > maxBytes) return -1;
  const start = at + 1;
  const end = start + length;
  if (end > raw.length) return -1;
  if (length === 1 && raw[start]! < 0x80) return -1; // non-canonical RLP
  if (length > 0 && raw[start] === 0) return -1; // leading zero
  return end;
}

/** The unsigned integer in raw[start, end). */
function uint(raw: Uint8Array, start: number, end: number): bigint {
  const length = end - start;
  if (length <= 6) {
    let n = 0;
    for (let i = start; i < end; i++) n = n * 256 + raw[i]!;
    return BigInt(n);
  }
  return BigInt('0x' + Buffer.from(raw.buffer, raw.byteOffset + start, length).toString('hex'));
}

/**
 * The fields of `raw` when it is a signed type-2 transfer for the chain whose id encodes as
 * `chainId` (unpadded big-endian) that @ethereumjs would decode without complaint; otherwise
 * undefined. Sender recovery may still fail (an r that is no curve point).
 */
export function decodeTransfer(raw: Uint8Array, chainId: Uint8Array): TransferFields | undefined {
  if (raw.length < 2 || raw[0] !== FEE_MARKET_TX_TYPE) return undefined;
  // The outer list: short, or long with a one- or two-byte length without leading zero.
  const head = raw[1]!;
  let at: number;
  let payload: number;
  if (head >= 0xc0 && head <= 0xf7) {
    payload = head - 0xc0;
    at = 2;
  } else if (head === 0xf8) {
    payload = raw[2] ?? 0;
    if (payload < 56) return undefined;
    at = 3;
  } else if (head === 0xf9) {
    payload = ((raw[3] ?? 0) | ((raw[2] ?? 0) << 8));
    if ((raw[2] ?? 0) === 0) return undefined;
    at = 4;
  } else {
    return undefined;
  }
  if (at + payload !== raw.length) return undefined;
  const signedStart = at;

  // chainId: exactly the chain's own encoding.
  const idAt = at;
  at = scalarEnd(raw, idAt, 32);
  if (at < 0) return undefined;
  const idStart = valueStart(raw, idAt);
  if (at - idStart !== chainId.length) return undefined;
  for (let i = 0; i < chainId.length; i++) if (raw[idStart + i] !== chainId[i]) return undefined;
  const nonceAt = at;
  const tipAt = (at = scalarEnd(raw, nonceAt, 8));
  if (tipAt < 0) return undefined;
  const feeCapAt = (at = scalarEnd(raw, tipAt, 32));
  if (feeCapAt < 0) return undefined;
  const gasAt = (at = scalarEnd(raw, feeCapAt, 32));
  if (gasAt < 0) return undefined;
  at = scalarEnd(raw, gasAt, 8);
  if (at < 0) return undefined;
  if (raw[at] !== ADDRESS_HEADER || at + 21 > raw.length) return undefined;
  const toStart = at + 1;
  const valueAt = (at += 21);
  at = scalarEnd(raw, valueAt, 32);
  if (at < 0) return undefined;
  if (raw[at] !== EMPTY_STRING || raw[at + 1] !== EMPTY_LIST) return undefined; // no calldata, no access list
  at += 2;
  const signedEnd = at;
  // y-parity 0 encodes as the empty string; 1 as the byte itself.
  const parity = raw[at];
  if (parity !== EMPTY_STRING && parity !== 1) return undefined;
  const rAt = at + 1;
  const sAt = scalarEnd(raw, rAt, 32);
  if (sAt < 0 || raw[rAt] === EMPTY_STRING) return undefined; // an empty r
  const end = scalarEnd(raw, sAt, 32);
  if (end < 0 || raw[sAt] === EMPTY_STRING || end !== raw.length) return undefined; // an empty s, or bytes after it

  const fields: TransferFields = {
    nonce: uint(raw, valueStart(raw, nonceAt), tipAt),
    maxPriorityFeePerGas: uint(raw, valueStart(raw, tipAt), feeCapAt),
    maxFeePerGas: uint(raw, valueStart(raw, feeCapAt), gasAt),
    gasLimit: uint(raw, valueStart(raw, gasAt), toStart - 1),
    toStart,
    value: uint(raw, valueStart(raw, valueAt), signedEnd - 2),
    signedStart,
    signedEnd,
    rStart: valueStart(raw, rAt),
    rEnd: sAt,
    sStart: valueStart(raw, sAt),
    sEnd: end,
    recoveryId: parity === 1 ? 1 : 0,
  };
  // @ethereumjs's range checks (EIP-2681 nonce, fee product, tip within cap, low s).
  if (fields.nonce >= MAX_UINT64) return undefined;
  if (fields.gasLimit * fields.maxFeePerGas > MAX_UINT256) return undefined;
  if (fields.maxFeePerGas < fields.maxPriorityFeePerGas) return undefined;
  if (uint(raw, fields.sStart, fields.sEnd) > SECP256K1_ORDER_DIV_2) return undefined;
  return fields;
}

/** Bytes of the signing message of a decoded transfer. */
export function signingMessageLength(fields: TransferFields): number {
  const signed = fields.signedEnd - fields.signedStart;
  return 1 + (signed < 56 ? 1 : signed < 256 ? 2 : 3) + signed;
}

/** Writes the signing message of `raw`'s decoded `fields` (0x02 ‖ rlp list of the signed fields) at `at`. */
export function writeSigningMessage(raw: Uint8Array, fields: TransferFields, out: Uint8Array, at: number): void {
  const signed = fields.signedEnd - fields.signedStart;
  out[at++] = FEE_MARKET_TX_TYPE;
  if (signed < 56) {
    out[at++] = 0xc0 + signed;
  } else if (signed < 256) {
    out[at++] = 0xf8;
    out[at++] = signed;
  } else {
    out[at++] = 0xf9;
    out[at++] = signed >> 8;
    out[at++] = signed & 0xff;
  }
  copyBytes(raw, fields.signedStart, fields.signedEnd, out, at);
}

/** Writes r ‖ s of `raw`'s decoded `fields`, each left-padded to 32 bytes, at `at` (64 bytes). */
export function writeSignature(raw: Uint8Array, fields: TransferFields, out: Uint8Array, at: number): void {
  out.fill(0, at, at + 64);
  copyBytes(raw, fields.rStart, fields.rEnd, out, at + 32 - (fields.rEnd - fields.rStart));
  copyBytes(raw, fields.sStart, fields.sEnd, out, at + 64 - (fields.sEnd - fields.sStart));
}

/** The signing message of `raw`'s decoded `fields`, in a new array. */
export function signingMessage(raw: Uint8Array, fields: TransferFields): Uint8Array {
  const out = new Uint8Array(signingMessageLength(fields));
  writeSigningMessage(raw, fields, out, 0);
  return out;
}

/** r ‖ s of `raw`'s decoded `fields`, in a new 64-byte array. */
export function signature(raw: Uint8Array, fields: TransferFields): Uint8Array {
  const out = new Uint8Array(64);
  writeSignature(raw, fields, out, 0);
  return out;
}

// A loop: for these few bytes a subarray view to set() from costs more than the copy.
function copyBytes(source: Uint8Array, start: number, end: number, out: Uint8Array, at: number): void {
  for (let i = start; i < end; i++) out[at++] = source[i]!;
}
