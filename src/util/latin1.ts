/**
 * Bytes as a latin1 string (one character per byte): the cheapest string id of a key for a
 * `Map`. Buffer's `latin1Slice` reads any Uint8Array, so no Buffer view is made per key.
 */
const latin1Slice = Buffer.prototype.latin1Slice as (this: Uint8Array, start: number, end: number) => string;

/** `bytes` as a latin1 string, one character per byte. */
export function latin1(bytes: Uint8Array): string {
  return latin1Slice.call(bytes, 0, bytes.length);
}
