/**
 * The operations of one atomic PlainKv write, packed into a single growing buffer: for each op
 * a u32 (little-endian) key length and the key, then a u32 value length and the value, or
 * 0xffffffff for a deletion. A block write holds two ops per transaction; packed, they cost
 * no key buffer, op object or native call each.
 */

import { GrowingBuffer } from '../util/growing-buffer.js';

const DELETE = 0xffffffff;

/** A write batch whose ops go to PlainKv.writePacked in one buffer. */
export class PackedKvOps {
  readonly #packed: GrowingBuffer;

  /** A batch sized for about `expectedBytes` (it grows as needed). */
  constructor(expectedBytes = 4096) {
    this.#packed = new GrowingBuffer(Math.max(64, expectedBytes));
  }

  /** Sets `key` to `value`, or deletes it when `value` is null. */
  put(key: Uint8Array, value: Uint8Array | null): void {
    const at = this.#op(key.length, value);
    this.#packed.buffer.set(key, at);
  }

  /** put with the key `prefix` byte ‖ `suffix`, built in place. */
  putPrefixed(prefix: number, suffix: Uint8Array, value: Uint8Array | null): void {
    const at = this.#op(1 + suffix.length, value);
    const out = this.#packed.buffer;
    out[at] = prefix;
    out.set(suffix, at + 1);
  }

  /** The packed ops (a view of the batch's buffer, valid until the next op). */
  bytes(): Buffer {
    return this.#packed.bytes();
  }

  /** Claims one op's bytes and writes its length words and value; answers where its key goes. */
  #op(keyLength: number, value: Uint8Array | null): number {
    const at = this.#packed.claim(8 + keyLength + (value === null ? 0 : value.length));
    const out = this.#packed.buffer;
    out.writeUInt32LE(keyLength, at);
    out.writeUInt32LE(value === null ? DELETE : value.length, at + 4 + keyLength);
    if (value !== null) out.set(value, at + 8 + keyLength);
    return at + 4;
  }
}
