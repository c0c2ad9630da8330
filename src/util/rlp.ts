/**
 * RLP encoding of byte strings, integers and lists of them into one buffer, and decoding into views of
 * the input. @ethereumjs/rlp gives the same bytes but concatenates a new array at every level,
 * and decodes every byte string into a copy with its own ArrayBuffer; the block path encodes
 * a block and a receipt per transaction and decodes every block a follower syncs, so this
 * sizes first and writes once, and decodes without copying.
 */

/**
 * A byte string, a non-negative integer (encoded as its minimal big-endian bytes, as
 * @ethereumjs/rlp encodes numbers and bigints), or a (nested) list of them.
 */
export type RlpInput = Uint8Array | number | bigint | readonly RlpInput[];

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A safe integer's value, checked non-negative; undefined when it needs bigint bytes. */
function safeUint(item: number | bigint): number | undefined {
  if (typeof item === 'bigint' && item > MAX_SAFE) return undefined;
  const n = Number(item);
  if (n < 0 || !Number.isSafeInteger(n)) throw new RangeError(`RLP encodes non-negative safe integers (a bigint above 2^53 - 1); got ${item}`);
  return n;
}

function lengthOfLength(length: number): number {
  let bytes = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes++;
  return bytes;
}

/** Bytes of the item's header (0 for a single byte below 0x80) plus its payload. */
function encodedLength(item: RlpInput, sizes: number[]): number {
  if (typeof item === 'number' || typeof item === 'bigint') {
    const n = safeUint(item);
    if (n === undefined) return encodedLength(uintBytes(item), sizes);
    return n < 0x80 ? 1 : 1 + lengthOfLength(n);
  }
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return 1;
    return (item.length < 56 ? 1 : 1 + lengthOfLength(item.length)) + item.length;
  }
  const slot = sizes.length;
  sizes.push(0);
  let payload = 0;
  for (const child of item) payload += encodedLength(child, sizes);
  sizes[slot] = payload;
  return (payload < 56 ? 1 : 1 + lengthOfLength(payload)) + payload;
}

function writeHeader(out: Buffer, at: number, short: number, long: number, length: number): number {
  if (length < 56) {
    out[at] = short + length;
    return at + 1;
  }
  const bytes = lengthOfLength(length);
  out[at] = long + bytes;
  for (let i = bytes; i > 0; i--, length = Math.floor(length / 256)) out[at + i] = length % 256;
  return at + 1 + bytes;
}

function write(item: RlpInput, out: Buffer, at: number, sizes: number[], next: { slot: number }): number {
  if (typeof item === 'number' || typeof item === 'bigint') {
    let n = safeUint(item);
    if (n === undefined) return write(uintBytes(item), out, at, sizes, next);
    if (n < 0x80) {
      out[at] = n === 0 ? 0x80 : n;
      return at + 1;
    }
    const bytes = lengthOfLength(n);
    out[at] = 0x80 + bytes;
    for (let i = bytes; i > 0; i--, n = Math.floor(n / 256)) out[at + i] = n % 256;
    return at + 1 + bytes;
  }
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[at] = item[0]!;
      return at + 1;
    }
    at = writeHeader(out, at, 0x80, 0xb7, item.length);
    out.set(item, at);
    return at + item.length;
  }
  at = writeHeader(out, at, 0xc0, 0xf7, sizes[next.slot++]!);
  for (const child of item) at = write(child, out, at, sizes, next);
  return at;
}

/** The RLP header of a list whose items take `length` bytes. */
export function rlpListHeader(length: number): Uint8Array {
  const out = Buffer.allocUnsafe(length < 56 ? 1 : 1 + lengthOfLength(length));
  writeHeader(out, 0, 0xc0, 0xf7, length);
  return out;
}

/** The RLP encoding of `item`, as @ethereumjs/rlp's encode gives it for the same input. */
export function encodeRlp(item: RlpInput): Buffer {
  const sizes: number[] = [];
  const out = Buffer.allocUnsafe(encodedLength(item, sizes));
  write(item, out, 0, sizes, { slot: 0 });
  return out;
}

/** Writes one byte string or integer at `at` of `out` (which must have room); answers the offset after it. */
function writeScalar(out: Buffer, at: number, item: Uint8Array | number | bigint): number {
  // Typed arrays drop writes past their end: every write is checked to fit first.
  if (at >= out.length) throw new RangeError('the list does not fit its scratch buffer');
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) {
      out[at] = item[0]!;
      return at + 1;
    }
    if (item.length >= 56) throw new RangeError(`a flat list's byte strings must be shorter than 56 bytes; got ${item.length}`);
    if (at + 1 + item.length > out.length) throw new RangeError('the list does not fit its scratch buffer');
    out[at] = 0x80 + item.length;
    out.set(item, at + 1);
    return at + 1 + item.length;
  }
  let n = safeUint(item);
  if (n === undefined) return writeScalar(out, at, uintBytes(item));
  if (n < 0x80) {
    out[at] = n === 0 ? 0x80 : n;
    return at + 1;
  }
  const bytes = lengthOfLength(n);
  if (at + 1 + bytes > out.length) throw new RangeError('the list does not fit its scratch buffer');
  out[at] = 0x80 + bytes;
  for (let i = bytes; i > 0; i--, n = Math.floor(n / 256)) out[at + i] = n % 256;
  return at + 1 + bytes;
}

/**
 * encodeRlp of a list of byte strings (each under 56 bytes) and integers, written into
 * `scratch` instead of a new buffer and without encodeRlp's sizing pass: for a small record
 * encoded many times per block (a stored receipt), whose bytes the caller copies at once. The
 * answer is a view of `scratch`, valid until its next use; the list must fit in it (its
 * payload under 256 bytes).
 */
export function encodeFlatListInto(scratch: Buffer, items: ReadonlyArray<Uint8Array | number | bigint>): Buffer {
  // Items go after room for the longest header this allows (0xf8 and one length byte).
  let end = 2;
  for (const item of items) end = writeScalar(scratch, end, item);
  const payload = end - 2;
  if (payload < 56) {
    scratch[1] = 0xc0 + payload;
    return scratch.subarray(1, end);
  }
  if (payload > 255) throw new RangeError(`a flat list's payload must be under 256 bytes; got ${payload}`);
  scratch[0] = 0xf8;
  scratch[1] = payload;
  return scratch.subarray(0, end);
}

/** Minimal big-endian bytes of a non-negative integer (empty for zero), as RLP encodes integers. */
export function uintBytes(value: bigint | number): Uint8Array {
  if (typeof value === 'number' ? value <= Number.MAX_SAFE_INTEGER : value <= BigInt(Number.MAX_SAFE_INTEGER)) {
    let n = Number(value);
    const bytes = lengthOfLength(n);
    const out = new Uint8Array(bytes);
    for (let i = bytes - 1; i >= 0; i--, n = Math.floor(n / 256)) out[i] = n % 256;
    return out;
  }
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

/** Thrown for bytes that are not one canonical RLP item. */
export class RlpDecodeError extends Error {
  override name = 'RlpDecodeError';
}

/** Big-endian length of `count` bytes at `at`, canonical: no leading zero, and not below 56. */
function longLength(input: Uint8Array, at: number, count: number): number {
  if (at + count > input.length) throw new RlpDecodeError(`length bytes run past the end of the input at offset ${at}`);
  if (input[at] === 0) throw new RlpDecodeError(`length at offset ${at} has a leading zero byte`);
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + input[at + i]!;
  if (length < 56) throw new RlpDecodeError(`length ${length} at offset ${at} must use the short form`);
  return length;
}

/** Decodes the item at `at`; returns it and the offset after it. */
function decodeItem(input: Uint8Array, at: number, end: number): [RlpInput, number] {
  const first = input[at]!;
  if (first < 0x80) return [input.subarray(at, at + 1), at + 1];
  let start: number;
  let length: number;
  if (first <= 0xb7 || (first >= 0xc0 && first <= 0xf7)) {
    start = at + 1;
    length = first - (first <= 0xb7 ? 0x80 : 0xc0);
  } else {
    const count = first - (first <= 0xbf ? 0xb7 : 0xf7);
    start = at + 1 + count;
    length = longLength(input, at + 1, count);
  }
  const stop = start + length;
  if (stop > end) throw new RlpDecodeError(`item at offset ${at} claims ${length} bytes, past the end of its enclosing item`);
  if (first <= 0xbf) {
    if (length === 1 && input[start]! < 0x80) throw new RlpDecodeError(`single byte below 0x80 at offset ${at} must be encoded as itself`);
    return [input.subarray(start, stop), stop];
  }
  const items: RlpInput[] = [];
  for (let next = start; next < stop; ) {
    const [item, after] = decodeItem(input, next, stop);
    items.push(item);
    next = after;
  }
  return [items, stop];
}

/**
 * Decodes one canonical RLP item that fills `input`, as @ethereumjs/rlp's decode does, but each
 * byte string is a view of `input` (which it therefore keeps alive), not a copy.
 */
export function decodeRlp(input: Uint8Array): RlpInput {
  if (input.length === 0) throw new RlpDecodeError('input is empty');
  const [item, end] = decodeItem(input, 0, input.length);
  if (end !== input.length) throw new RlpDecodeError(`${input.length - end} bytes follow the item`);
  return item;
}
