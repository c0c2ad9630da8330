/**
 * What sender recovery needs of a signed transaction: its signing hash, r ‖ s and the
 * recovery id, for the native batch (store/sender-recovery.ts).
 *
 * The signing hash is taken from the raw bytes: the signed payload is the raw list without its
 * last three items (v, r, s), so re-framing that byte range (plus the EIP-155 chain id of a
 * legacy tx) and hashing it costs one keccak, where re-encoding the tx's fields costs more than
 * decoding it did.
 */
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { SECP256K1_ORDER_DIV_2, bigIntToBytes, bigIntToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util';

import type { RecoveryItem } from '../store/index.js';
import { keccak256 } from '../util/keccak.js';
import { rlpListHeader } from '../util/rlp.js';
import { recoveryId } from './crypto.js';

/** Offset and total length (header included) of the RLP item at `at`. */
function rlpItem(raw: Uint8Array, at: number): { header: number; length: number } {
  const b = raw[at]!;
  if (b < 0x80) return { header: 0, length: 1 };
  if (b <= 0xb7) return { header: 1, length: 1 + b - 0x80 };
  if (b <= 0xbf || (b >= 0xf8)) {
    const size = b <= 0xbf ? b - 0xb7 : b - 0xf7;
    let payload = 0;
    for (let i = 1; i <= size; i++) payload = payload * 256 + raw[at + i]!;
    return { header: 1 + size, length: 1 + size + payload };
  }
  return { header: 1, length: 1 + b - 0xc0 };
}

/** The RLP of a short byte string (a chain id). */
function rlpString(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Uint8Array.of(0x80 + bytes.length, ...bytes);
}

/**
 * keccak256 of what `tx`'s signature signs, from its `raw` encoding: for a typed tx,
 * type ‖ rlp(fields before v); for a legacy one rlp(fields before v), plus chain id, 0, 0 under
 * EIP-155. Undefined when `raw` is not shaped as expected (the caller then asks @ethereumjs).
 */
export function signingHashOf(tx: TypedTransaction, raw: Uint8Array): Uint8Array | undefined {
  const typed = raw[0]! < 0xc0;
  const listAt = typed ? 1 : 0;
  const list = rlpItem(raw, listAt);
  if (raw[listAt]! < 0xc0 || listAt + list.length !== raw.length) return undefined;
  const ends: number[] = [];
  for (let at = listAt + list.header; at < raw.length; ) {
    at += rlpItem(raw, at).length;
    ends.push(at);
  }
  if (ends.length < 4 || ends[ends.length - 1] !== raw.length) return undefined;
  const fieldsStart = listAt + list.header;
  const fieldsEnd = ends[ends.length - 4]!; // where v begins
  const fields = raw.subarray(fieldsStart, fieldsEnd);
  const suffix =
    !typed && tx.supports(Capability.EIP155ReplayProtection)
      ? Uint8Array.of(...rlpString(bigIntToUnpaddedBytes(tx.common.chainId())), 0x80, 0x80)
      : new Uint8Array();
  const header = rlpListHeader(fields.length + suffix.length);
  const payload = new Uint8Array(listAt + header.length + fields.length + suffix.length);
  if (typed) payload[0] = raw[0]!;
  payload.set(header, listAt);
  payload.set(fields, listAt + header.length);
  payload.set(suffix, listAt + header.length + fields.length);
  return keccak256(payload);
}

/**
 * The recovery input of `tx` (decoded from `raw`), or undefined when its signature needs
 * @ethereumjs's own path to be refused with the exact text (a high s, a v that is neither
 * parity) or its encoding is not the expected shape.
 */
export function recoveryItemOf(tx: TypedTransaction, raw: Uint8Array): RecoveryItem | undefined {
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) return undefined;
  if (s > SECP256K1_ORDER_DIV_2 || r >= 1n << 256n) return undefined;
  let id: number;
  try {
    id = recoveryId(v, tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined);
  } catch {
    return undefined;
  }
  const hash = signingHashOf(tx, raw);
  if (!hash) return undefined;
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(bigIntToBytes(r), 32), 0);
  signature.set(setLengthLeft(bigIntToBytes(s), 32), 32);
  return { hash, signature, recoveryId: id };
}
