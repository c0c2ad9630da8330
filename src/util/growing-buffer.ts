/**
 * A byte buffer that doubles as it fills, for batches packed op by op (a block's key-value
 * writes, its signed messages, its transfer receipts) and handed to native code in one piece.
 */
export class GrowingBuffer {
  #buffer: Buffer;
  #length = 0;

  /** A buffer of `initialBytes` to start with. */
  constructor(initialBytes: number) {
    this.#buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** Makes room for `bytes` more after the end and answers their offset in {@link buffer}; the caller writes all of them. */
  claim(bytes: number): number {
    const at = this.#length;
    const needed = at + bytes;
    if (needed > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.#buffer.length));
      this.#buffer.copy(grown, 0, 0, at);
      this.#buffer = grown;
    }
    this.#length = needed;
    return at;
  }

  /** The current backing buffer (replaced when a claim grows it). */
  get buffer(): Buffer {
    return this.#buffer;
  }

  /** The claimed bytes (a view, valid until the next claim). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }
}
