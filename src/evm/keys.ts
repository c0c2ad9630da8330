/**
 * The module-store key layout of EVM state (the reference's prefixes): balances in `bank`,
 * nonce / code hash / code / code size / storage in `evm`.
 */

/** The Cosmos store holding balances (key = 20-byte address, value = 32-byte BE wei). */
export const BANK_STORE = 'bank';
/** The store holding nonces, code and contract storage. */
export const EVM_STORE = 'evm';

/** Prefix of `0x03 ‖ addr ‖ slot32` → 32-byte storage value. */
export const STORAGE_PREFIX = 0x03;
/** Prefix of `0x07 ‖ addr` → contract code. */
export const CODE_PREFIX = 0x07;
/** Prefix of `0x08 ‖ addr` → keccak256 of the code. */
export const CODE_HASH_PREFIX = 0x08;
/** Prefix of `0x09 ‖ addr` → code size, 8-byte BE. */
export const CODE_SIZE_PREFIX = 0x09;
/** Prefix of `0x0a ‖ addr` → nonce, 8-byte BE. */
export const NONCE_PREFIX = 0x0a;

function prefixed(prefix: number, address: Uint8Array): Uint8Array {
  const key = new Uint8Array(21);
  key[0] = prefix;
  key.set(address, 1);
  return key;
}

/** `bank` key of an address's balance. */
export function balanceKey(address: Uint8Array): Uint8Array {
  return address;
}
/** `evm` key of an address's nonce. */
export function nonceKey(address: Uint8Array): Uint8Array {
  return prefixed(NONCE_PREFIX, address);
}
/** `evm` key of an address's code hash. */
export function codeHashKey(address: Uint8Array): Uint8Array {
  return prefixed(CODE_HASH_PREFIX, address);
}
/** `evm` key of an address's code. */
export function codeKey(address: Uint8Array): Uint8Array {
  return prefixed(CODE_PREFIX, address);
}
/** `evm` key of an address's code size. */
export function codeSizeKey(address: Uint8Array): Uint8Array {
  return prefixed(CODE_SIZE_PREFIX, address);
}
/** `evm` key of one storage slot (the slot is left-padded to 32 bytes). */
export function storageKey(address: Uint8Array, slot: Uint8Array): Uint8Array {
  const key = new Uint8Array(53);
  key[0] = STORAGE_PREFIX;
  key.set(address, 1);
  key.set(slot, 53 - slot.length);
  return key;
}

/** A non-negative integer as `width` big-endian bytes. */
export function encodeUint(value: bigint, width: number): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(width * 8)) throw new RangeError(`value ${value} does not fit in ${width} bytes`);
  const out = new Uint8Array(width);
  let v = value;
  for (let i = width - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Big-endian bytes as a bigint (empty = 0). */
export function decodeUint(bytes: Uint8Array | undefined | null): bigint {
  if (!bytes || bytes.length === 0) return 0n;
  return BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
}
