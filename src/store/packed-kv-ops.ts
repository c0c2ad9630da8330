/**
 * The operations of one atomic PlainKv write, packed into a single growing buffer: for each op
 * a u32 (little-endian) key length and the key, then a u32 value length and the value, or
 * 0xffffffff for a deletion. A block write holds two ops per transaction; packed, they cost
 * no key buffer, op object or native call each.
 */

const DELETE = 0xffffffff;

/** A write batch whose ops go to PlainKv.writePacked in one buffer. */
export class PackedKvOps {
  #buffer: Buffer;
  #length = 0;

  /** A batch sized for about `expectedBytes` (it grows as needed). */
  constructor(expectedBytes = 4096) {
    this.#buffer = Buffer.allocUnsafe(Math.max(64, expectedBytes));
  }

  /** Sets `key` to `value`, or deletes it when `value` is null. */
  put(key: Uint8Array, value: Uint8Array | null): void {
    this.#key(key.length).set(key, this.#length);
    this.#length += key.length;
    this.#value(value);
  }

  /** put with the key `prefix` byte ‖ `suffix`, built in place. */
  putPrefixed(prefix: number, suffix: Uint8Array, value: Uint8Array | null): void {
    const out = this.#key(1 + suffix.length);
    out[this.#length] = prefix;
    out.set(suffix, this.#length + 1);
    this.#length += 1 + suffix.length;
    this.#value(value);
  }

  /** The packed ops (a view of the batch's buffer, valid until the next op). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  /** Writes a key's length word; returns the buffer, with room for the key after it. */
  #key(length: number): Buffer {
    const out = this.#reserve(4 + length);
    out.writeUInt32LE(length, this.#length);
    this.#length += 4;
    return out;
  }

  #value(value: Uint8Array | null): void {
    if (value === null) {
      this.#reserve(4).writeUInt32LE(DELETE, this.#length);
      this.#length += 4;
      return;
    }
    const out = this.#reserve(4 + value.length);
    out.writeUInt32LE(value.length, this.#length);
    out.set(value, this.#length + 4);
    this.#length += 4 + value.length;
  }

  /** The buffer, grown (doubling) to hold `bytes` more after the current end. */
  #reserve(bytes: number): Buffer {
    const needed = this.#length + bytes;
    if (needed > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    return this.#buffer;
  }
}
