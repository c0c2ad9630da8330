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

/** Keys of one store packed end to end for a many-key read, with each key's length. */
export interface PackedKeys {
  packed: Uint8Array;
  lengths: Int32Array;
}

/**
 * The keys of `addresses`' account fields, packed per store: `bank` holds each balance key,
 * `evm` each nonce key followed by that address's code-hash key.
 */
export function packedAccountKeys(addresses: readonly Uint8Array[]): { bank: PackedKeys; evm: PackedKeys } {
  let bytes = 0;
  for (const a of addresses) bytes += a.length;
  const bank = Buffer.allocUnsafe(bytes);
  const evm = Buffer.allocUnsafe(2 * (addresses.length + bytes));
  const bankLengths = new Int32Array(addresses.length);
  const evmLengths = new Int32Array(2 * addresses.length);
  let b = 0;
  let e = 0;
  for (let i = 0; i < addresses.length; i++) {
    const a = addresses[i]!;
    bank.set(a, b);
    b += a.length;
    bankLengths[i] = a.length;
    evm[e] = NONCE_PREFIX;
    evm.set(a, e + 1);
    evm[e + 1 + a.length] = CODE_HASH_PREFIX;
    evm.set(a, e + 2 + a.length);
    e += 2 + 2 * a.length;
    evmLengths[2 * i] = evmLengths[2 * i + 1] = 1 + a.length;
  }
  return { bank: { packed: bank, lengths: bankLengths }, evm: { packed: evm, lengths: evmLengths } };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Bytes read into one safe integer at a time when decoding. */
const CHUNK_BYTES = 6;
const CHUNK_BITS = BigInt(CHUNK_BYTES * 8);

/** A non-negative integer as `width` big-endian bytes. */
export function encodeUint(value: bigint, width: number): Uint8Array {
  if (value < 0n) throw new RangeError(`value ${value} does not fit in ${width} bytes`);
  const out = new Uint8Array(width);
  // Most values (nonces, sizes, small balances) are safe integers: no bigint arithmetic then.
  if (value <= MAX_SAFE) {
    let n = Number(value);
    for (let i = width - 1; n > 0; i--) {
      if (i < 0) throw new RangeError(`value ${value} does not fit in ${width} bytes`);
      out[i] = n % 256;
      n = Math.floor(n / 256);
    }
    return out;
  }
  const hex = value.toString(16);
  if (hex.length > 2 * width) throw new RangeError(`value ${value} does not fit in ${width} bytes`);
  for (let i = width - 1, j = hex.length; j > 0; i--, j -= 2) {
    out[i] = (j === 1 ? 0 : nibble(hex.charCodeAt(j - 2)) << 4) | nibble(hex.charCodeAt(j - 1));
  }
  return out;
}

/** The value of a lowercase hex digit's char code. */
function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57;
}

/** Big-endian bytes as a bigint (empty = 0). */
export function decodeUint(bytes: Uint8Array | undefined | null): bigint {
  if (!bytes) return 0n;
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  const significant = bytes.length - i;
  // The leading chunk takes the odd bytes, every later one CHUNK_BYTES, each a safe integer.
  let size = significant % CHUNK_BYTES || CHUNK_BYTES;
  let value = 0n;
  for (let first = true; i < bytes.length; first = false, size = CHUNK_BYTES) {
    let chunk = 0;
    for (const end = i + size; i < end; i++) chunk = chunk * 256 + bytes[i]!;
    value = first ? BigInt(chunk) : (value << CHUNK_BITS) | BigInt(chunk);
  }
  return value;
}
