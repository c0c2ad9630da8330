/** Hex encodings of the Ethereum JSON-RPC wire format: minimal quantities and 0x byte strings. */

export { bytesHex, quantity } from '../../util/hex.js';

/** A quantity as a fixed-width 0x hex of `bytes` bytes (block nonce, signature words). */
export function fixedHex(value: bigint, bytes: number): string {
  return `0x${value.toString(16).padStart(bytes * 2, '0')}`;
}

/** Decodes 0x hex (even length, already validated) into bytes. */
export function hexToBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.slice(2), 'hex'));
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** True when `text` holds only hex digits. */
export function isHexDigits(text: string): boolean {
  return HEX_DIGITS.test(text);
}
