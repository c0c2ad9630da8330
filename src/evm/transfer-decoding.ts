/**
 * A decoder for the transaction that fills blocks: an EIP-1559 transfer (recipient, value, no
 * calldata, no access list). @ethereumjs spends about ten microseconds building a transaction
 * object, most of it in generic field handling; this reads the few fields straight from the
 * bytes. It accepts only encodings @ethereumjs accepts with the same values, and answers
 * undefined for anything else — any other shape, and every encoding @ethereumjs would refuse —
 * so that the caller decodes those with @ethereumjs and reports its exact error.
 */
import { SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util';

import { rlpListHeader } from '../util/rlp.js';

const FEE_MARKET_TX_TYPE = 2;
const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;
const EMPTY_STRING = 0x80;
const EMPTY_LIST = 0xc0;
const ADDRESS_HEADER = 0x80 + 20;

/** The fields of a type-2 transfer, with what sender recovery needs. */
export interface TransferFields {
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gasLimit: bigint;
  /** The 20-byte recipient (a view into the raw bytes). */
  to: Uint8Array;
  value: bigint;
  /** What the signature signs, 0x02 ‖ rlp(the fields before y-parity); its keccak256 is the signing hash. */
  signingMessage: Uint8Array;
  /** r ‖ s, each left-padded to 32 bytes. */
  signature: Uint8Array;
  recoveryId: 0 | 1;
}

/** Where a field's value bytes sit within the raw encoding. */
interface Span {
  start: number;
  end: number;
}

/** Reads the byte string at `at` as @ethereumjs accepts a numeric field; undefined otherwise. */
function scalar(raw: Uint8Array, at: number, maxBytes: number): Span | undefined {
  const b = raw[at];
  if (b === undefined) return undefined;
  if (b < 0x80) return b === 0 ? undefined : { start: at, end: at + 1 }; // a lone 0x00 is a leading zero
  const length = b - 0x80;
  if (length > maxBytes) return undefined;
  const start = at + 1;
  const end = start + length;
  if (end > raw.length) return undefined;
  if (length === 1 && raw[start]! < 0x80) return undefined; // non-canonical RLP
  if (length > 0 && raw[start] === 0) return undefined; // leading zero
  return { start, end };
}

function uint(raw: Uint8Array, span: Span): bigint {
  const length = span.end - span.start;
  if (length <= 6) {
    let n = 0;
    for (let i = span.start; i < span.end; i++) n = n * 256 + raw[i]!;
    return BigInt(n);
  }
  return BigInt('0x' + Buffer.from(raw.buffer, raw.byteOffset + span.start, length).toString('hex'));
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
  const fieldsStart = at;

  // Reads the numeric field at `at` and moves past it.
  const next = (maxBytes: number): Span | undefined => {
    const span = scalar(raw, at, maxBytes);
    if (span) at = span.end;
    return span;
  };
  // chainId: exactly the chain's own encoding.
  const id = next(32);
  if (!id || id.end - id.start !== chainId.length) return undefined;
  for (let i = 0; i < chainId.length; i++) if (raw[id.start + i] !== chainId[i]) return undefined;
  const nonce = next(8);
  const tip = next(32);
  const feeCap = next(32);
  const gas = next(8);
  if (!nonce || !tip || !feeCap || !gas) return undefined;
  if (raw[at] !== ADDRESS_HEADER || at + 21 > raw.length) return undefined;
  const to = raw.subarray(at + 1, at + 21);
  at += 21;
  const value = next(32);
  if (!value) return undefined;
  if (raw[at] !== EMPTY_STRING || raw[at + 1] !== EMPTY_LIST) return undefined; // no calldata, no access list
  at += 2;
  const fieldsEnd = at;
  // y-parity 0 encodes as the empty string; 1 as the byte itself.
  const parity = raw[at];
  if (parity !== EMPTY_STRING && parity !== 1) return undefined;
  at += 1;
  const r = next(32);
  if (!r || r.end === r.start) return undefined;
  const s = next(32);
  if (!s || s.end === s.start) return undefined;
  if (s.end !== raw.length) return undefined;

  const fields: TransferFields = {
    nonce: uint(raw, nonce),
    maxPriorityFeePerGas: uint(raw, tip),
    maxFeePerGas: uint(raw, feeCap),
    gasLimit: uint(raw, gas),
    to,
    value: uint(raw, value),
    signingMessage: new Uint8Array(0),
    signature: new Uint8Array(64),
    recoveryId: parity === 1 ? 1 : 0,
  };
  // @ethereumjs's range checks (EIP-2681 nonce, fee product, tip within cap, low s).
  if (fields.nonce >= MAX_UINT64) return undefined;
  if (fields.gasLimit * fields.maxFeePerGas > MAX_UINT256) return undefined;
  if (fields.maxFeePerGas < fields.maxPriorityFeePerGas) return undefined;
  if (uint(raw, s) > SECP256K1_ORDER_DIV_2) return undefined;

  fields.signature.set(raw.subarray(r.start, r.end), 32 - (r.end - r.start));
  fields.signature.set(raw.subarray(s.start, s.end), 64 - (s.end - s.start));
  const signed = fieldsEnd - fieldsStart;
  const header = rlpListHeader(signed);
  const message = new Uint8Array(1 + header.length + signed);
  message[0] = FEE_MARKET_TX_TYPE;
  message.set(header, 1);
  message.set(raw.subarray(fieldsStart, fieldsEnd), 1 + header.length);
  fields.signingMessage = message;
  return fields;
}
