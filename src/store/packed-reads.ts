/**
 * The addon's many-key read protocol, shared by the state store and the commit store: keys go
 * packed in one buffer with their lengths, values come back packed in one buffer with an
 * [offset, length] slot pair per key (length -1 when absent).
 */
import { InvalidArgumentError } from './errors.js';

/** The native half of one many-key read. */
export type PackedRead = (packedKeys: Uint8Array, keyLengths: Int32Array, slots: Int32Array) => Buffer;

/** Reuses one slot array across reads of a store. */
export class PackedReader {
  #slots = new Int32Array(512);

  /** The values of `keys` (undefined when absent), read with `read` in one native call. */
  read(keys: readonly Uint8Array[], read: PackedRead): Array<Buffer | undefined> {
    if (!Array.isArray(keys)) throw new InvalidArgumentError('keys must be an array of Uint8Array');
    const keyLengths = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (!(key instanceof Uint8Array)) throw new InvalidArgumentError('key must be a Uint8Array or Buffer');
      keyLengths[i] = key.length;
    }
    return this.#read(Buffer.concat(keys as Uint8Array[]), keyLengths, read);
  }

  /** {@link read} of keys already packed end to end in `packedKeys`, `keyLengths` long each. */
  readPacked(packedKeys: Uint8Array, keyLengths: Int32Array, read: PackedRead): Array<Buffer | undefined> {
    if (!(packedKeys instanceof Uint8Array) || !(keyLengths instanceof Int32Array)) throw new InvalidArgumentError('packed keys must be a Uint8Array and their lengths an Int32Array');
    let total = 0;
    for (let i = 0; i < keyLengths.length; i++) total += keyLengths[i]!;
    if (total !== packedKeys.length) throw new InvalidArgumentError(`the key lengths add up to ${total} bytes, but ${packedKeys.length} bytes of keys were given`);
    return this.#read(packedKeys, keyLengths, read);
  }

  /** One native read of keys whose lengths are known to cover `packedKeys`. */
  #read(packedKeys: Uint8Array, keyLengths: Int32Array, read: PackedRead): Array<Buffer | undefined> {
    if (this.#slots.length < 2 * keyLengths.length) this.#slots = new Int32Array(2 * keyLengths.length);
    const slots = this.#slots;
    const packed = read(packedKeys, keyLengths, slots);
    const values = new Array<Buffer | undefined>(keyLengths.length);
    for (let i = 0; i < keyLengths.length; i++) {
      const length = slots[2 * i + 1]!;
      values[i] = length >= 0 ? packed.subarray(slots[2 * i]!, slots[2 * i]! + length) : undefined;
    }
    return values;
  }
}
