/** Hex text of bytes and numbers, in the one spelling the node uses everywhere: lower case, `0x`-prefixed. */

/** A `0x`-prefixed hex string. */
export type Hex = `0x${string}`;

/** `0x`-prefixed lower-case hex of `bytes` (`0x` when empty). */
export function bytesHex(bytes: Uint8Array): Hex {
  return `0x${plainHex(bytes)}`;
}

/** Lower-case hex of `bytes` without a prefix (log fields, error texts that print bare hashes). */
export function plainHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** A hex quantity without leading zeros (`0x0` for zero), as geth's hexutil.Big prints it. */
export function quantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}`;
}
