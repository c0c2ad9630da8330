/**
 * RLP encoding of byte strings and lists of them into one buffer. @ethereumjs/rlp gives the
 * same bytes but concatenates a new array at every level, and the block store encodes a
 * block and a receipt per transaction on the block path, so this sizes first and writes once.
 */

/** A byte string or a (nested) list of them. */
export type RlpInput = Uint8Array | readonly RlpInput[];

function lengthOfLength(length: number): number {
  let bytes = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes++;
  return bytes;
}

/** Bytes of the item's header (0 for a single byte below 0x80) plus its payload. */
function encodedLength(item: RlpInput, sizes: number[]): number {
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
