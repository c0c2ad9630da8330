/**
 * Hashes and byte helpers shared by the chain modules: keccak256 (util/keccak.ts, on the native
 * `keccak` package), sha256 through node:crypto, and the fixed-width integer codecs used in keys.
 */
import { createHash } from 'node:crypto';

export { keccak256, keccak256Memo } from '../util/keccak.js';

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** sha256 of `data` (32 bytes). */
export function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** `value` as 8 big-endian bytes; heights sort numerically in keys this way. */
export function uint64Be(value: number | bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(value));
  return out;
}

/** Reads 8 big-endian bytes at `offset` as a safe-integer number. */
export function readUint64Be(bytes: Uint8Array, offset = 0): number {
  const value = asBuffer(bytes).readBigUInt64BE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`stored integer ${value} exceeds 2^53 - 1`);
  return Number(value);
}

/** Bytes of a hex string, with or without `0x`; throws on odd length or non-hex characters. */
export function fromHex(hex: string): Buffer {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) throw new Error(`not a hex string: "${hex}"`);
  return Buffer.from(digits, 'hex');
}
