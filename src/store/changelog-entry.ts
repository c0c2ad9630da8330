/**
 * Encodes one block's changesets in the changelog entry format of the native core
 * (native/include/strata/changelog_entry.h), so a block crosses Node-API as one buffer:
 * encoding here runs at JIT speed, where reading each pair through Node-API cost ~1 µs.
 *
 *   u64 version | u32 changeset count | changeset*
 *   changeset = u32 name length | name | u32 pair count | pair*
 *   pair      = u8 kind (0 set, 1 delete) | u32 key length | key | [u32 value length | value]
 *
 * All integers little-endian. The native core re-validates the structure before logging.
 */
import { InvalidArgumentError } from './errors.js';
import type { NamedChangeset, Version } from './state-store.js';

const MAX_U64 = (1n << 64n) - 1n;
const MAX_ENTRY_BYTES = 0xffffffff;

/** A version as an unsigned 64-bit bigint, or an InvalidArgumentError saying what to pass. */
export function toVersion(version: Version, what = 'version'): bigint {
  if (typeof version === 'number') {
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new InvalidArgumentError(
        `${what} must be a non-negative integer (pass a bigint above 2^53 - 1), got ${version}`,
      );
    }
    return BigInt(version);
  }
  if (typeof version === 'bigint') {
    if (version < 0n || version > MAX_U64) {
      throw new InvalidArgumentError(
        `${what} does not fit in an unsigned 64-bit integer: ${version}; versions range from 0 to 2^64 - 1`,
      );
    }
    return version;
  }
  throw new InvalidArgumentError(`${what} must be a number or a bigint`);
}

function checkBytes(value: unknown, what: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw new InvalidArgumentError(`${what} must be a Uint8Array or Buffer`);
}

/** Rewrites the version of an encoded entry in place (a block encoded once for the SC and then logged by the SS at its version). */
export function setEntryVersion(entry: Buffer, version: Version): void {
  entry.writeBigUInt64LE(toVersion(version), 0);
}

/** Encodes `changesets` at `version`; throws InvalidArgumentError for unusable input. */
export function encodeChangelogEntry(version: Version, changesets: readonly NamedChangeset[]): Buffer {
  const v = toVersion(version);
  if (!Array.isArray(changesets)) throw new InvalidArgumentError('changesets must be an array of {name, pairs}');
  let size = 12;
  for (const cs of changesets) {
    if (typeof cs !== 'object' || cs === null || typeof cs.name !== 'string' || !Array.isArray(cs.pairs)) {
      throw new InvalidArgumentError('each changeset must be an object {name: string, pairs: array}');
    }
    if (cs.name.length === 0) throw new InvalidArgumentError('store name is empty: name the module store, e.g. "bank"');
    if (cs.name.includes('/')) {
      throw new InvalidArgumentError(`store name "${cs.name}" contains '/': module store names must not contain '/'`);
    }
    size += 8 + Buffer.byteLength(cs.name);
    for (const pair of cs.pairs) {
      if (typeof pair !== 'object' || pair === null) throw new InvalidArgumentError('each pair must be an object {key, value}');
      const { key, value } = pair;
      checkBytes(key, 'pair key');
      if (key.length === 0) throw new InvalidArgumentError('changeset key is empty: keys must be at least one byte long');
      size += 5 + key.length;
      if (value !== null && value !== undefined) {
        checkBytes(value, 'pair value');
        size += 4 + value.length;
      }
    }
  }
  if (size > MAX_ENTRY_BYTES) {
    throw new InvalidArgumentError(`block of ${size} bytes exceeds the 4 GiB changelog entry limit; split it`);
  }
  const out = Buffer.allocUnsafe(size);
  out.writeBigUInt64LE(v, 0);
  out.writeUInt32LE(changesets.length, 8);
  let o = 12;
  for (const cs of changesets) {
    const nameLength = out.write(cs.name, o + 4, 'utf8');
    out.writeUInt32LE(nameLength, o);
    o += 4 + nameLength;
    out.writeUInt32LE(cs.pairs.length, o);
    o += 4;
    for (const { key, value } of cs.pairs) {
      const set = value !== null && value !== undefined;
      out[o++] = set ? 0 : 1;
      out.writeUInt32LE(key.length, o);
      out.set(key, o + 4);
      o += 4 + key.length;
      if (set) {
        out.writeUInt32LE(value.length, o);
        out.set(value, o + 4);
        o += 4 + value.length;
      }
    }
  }
  return out;
}
