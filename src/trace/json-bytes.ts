/**
 * A growing buffer of ASCII JSON text, written in place: numbers, hex and literal pieces go
 * straight into bytes, so encoding a long trace makes no string (and no garbage) per field.
 */

/** Char codes of the lower-case hex digits. */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const QUOTE = 0x22;
const COMMA = 0x2c;
const ZERO = 0x30;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** ASCII JSON text in a byte buffer that doubles when full. */
export class JsonBytes {
  #bytes: Buffer;
  /** Bytes written so far. */
  length = 0;

  constructor(initialCapacity = 64 * 1024) {
    // Never from Node's shared pool: the bytes may be transferred to another thread.
    this.#bytes = Buffer.allocUnsafeSlow(initialCapacity);
  }

  /** Makes room for `more` bytes past the end. */
  reserve(more: number): void {
    const needed = this.length + more;
    if (needed <= this.#bytes.length) return;
    let capacity = Math.max(this.#bytes.length * 2, 1024);
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafeSlow(capacity);
    this.#bytes.copy(grown, 0, 0, this.length);
    this.#bytes = grown;
  }

  /** Appends ASCII `text` (room must be reserved). */
  ascii(text: string): void {
    const bytes = this.#bytes;
    let at = this.length;
    if (text.length > 32) {
      at += bytes.write(text, at, 'latin1');
    } else {
      for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    }
    this.length = at;
  }

  /** Appends one byte (room must be reserved). */
  byte(code: number): void {
    this.#bytes[this.length++] = code;
  }

  /** Appends a non-negative integer in decimal (room must be reserved: 20 bytes cover a uint64). */
  uint(value: number | bigint): void {
    if (typeof value === 'bigint') {
      if (value > MAX_SAFE) return this.ascii(value.toString());
      value = Number(value);
    }
    const bytes = this.#bytes;
    let digits = 1;
    for (let power = 10; power <= value; power *= 10) digits++;
    let at = this.length + digits;
    this.length = at;
    let rest = value;
    while (rest >= 10) {
      const tenth = Math.floor(rest / 10);
      bytes[--at] = ZERO + (rest - tenth * 10);
      rest = tenth;
    }
    bytes[--at] = ZERO + rest;
  }

  /** Appends `"0x…"`: a quoted minimal hex quantity (room must be reserved: 67 bytes cover 256 bits). */
  quantity(value: bigint): void {
    const bytes = this.#bytes;
    bytes[this.length++] = QUOTE;
    bytes[this.length++] = ZERO;
    bytes[this.length++] = 0x78;
    if (value <= 0xffffffffn) {
      // Up to 32 bits the digits come from the number's own bits, with no string made.
      let rest = Number(value);
      let digits = 1;
      while (digits < 8 && rest >>> (4 * digits) !== 0) digits++;
      let at = this.length + digits;
      this.length = at;
      for (let i = 0; i < digits; i++, rest >>>= 4) bytes[--at] = HEX_CODES[rest & 15]!;
    } else {
      this.ascii(value.toString(16));
    }
    bytes[this.length++] = QUOTE;
  }

  /** Appends `bytes` as bare hex digits (room must be reserved: twice their length). */
  hex(data: Uint8Array, start = 0, end = data.length): void {
    const bytes = this.#bytes;
    let at = this.length;
    for (let i = start; i < end; i++) {
      const b = data[i]!;
      bytes[at++] = HEX_CODES[b >>> 4]!;
      bytes[at++] = HEX_CODES[b & 15]!;
    }
    this.length = at;
  }

  /** Appends memory as geth prints it: `"0x<64 hex>"` per 32-byte word, comma-separated (room: 69 bytes a word). */
  words(memory: Uint8Array): void {
    const bytes = this.#bytes;
    for (let offset = 0; offset + 32 <= memory.length; offset += 32) {
      if (offset > 0) bytes[this.length++] = COMMA;
      bytes[this.length++] = QUOTE;
      bytes[this.length++] = ZERO;
      bytes[this.length++] = 0x78;
      this.hex(memory, offset, offset + 32);
      bytes[this.length++] = QUOTE;
    }
  }

  /** Appends a copy of the bytes written at `start`..`end` (room must be reserved). */
  repeat(start: number, end: number): void {
    this.#bytes.copyWithin(this.length, start, end);
    this.length += end - start;
  }

  /** Inserts ASCII `text` at `at`, moving what follows to make room. */
  insert(at: number, text: string): void {
    this.reserve(text.length);
    this.#bytes.copyWithin(at + text.length, at, this.length);
    this.#bytes.write(text, at, 'latin1');
    this.length += text.length;
  }

  /** Drops everything written and the memory behind it. */
  clear(): void {
    this.length = 0;
    this.#bytes = Buffer.allocUnsafeSlow(0);
  }

  /** The bytes written so far (a view, not a copy: nothing may be written after). */
  view(): Uint8Array {
    return this.#bytes.subarray(0, this.length);
  }
}
