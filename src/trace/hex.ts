/** Hex encodings used in geth's tracer output. */
import type { Hex } from '../util/hex.js';

export { bytesHex, quantity } from '../util/hex.js';

/** A 32-byte word as `0x` + 64 hex digits. */
export function word(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}`;
}

/** The address held in the low 20 bytes of a stack word. */
export function wordAddress(value: bigint): Hex {
  return `0x${(value & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
}

/** Bytes of a `0x` (or bare) hex string. */
export function hexBytes(text: string): Uint8Array {
  const body = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  return Uint8Array.from(Buffer.from(body.length % 2 === 1 ? `0${body}` : body, 'hex'));
}

/** `length` bytes of memory from `offset`, zero-padded past its end (as geth's padded copy). */
export function memorySlice(memory: Uint8Array, offset: bigint, length: bigint): Uint8Array {
  const out = new Uint8Array(Number(length));
  if (offset < BigInt(memory.length)) {
    const start = Number(offset);
    out.set(memory.subarray(start, Math.min(memory.length, start + out.length)));
  }
  return out;
}

/** Big-endian bytes of `value` without leading zeros (empty for zero), as RLP encodes integers. */
export function minimalBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  return hexBytes(value.toString(16));
}
