/**
 * keccak256 of many short inputs in one native call (a block's receipts): one crossing into
 * the addon for the batch, where hashing one input from JavaScript costs several.
 */
import { toStoreError } from './errors.js';
import { native } from './native.js';

/** keccak256 of each input packed end to end in `packed` (input i is `lengths[i]` bytes): 32 bytes per input, in order. */
export function keccak256Many(packed: Uint8Array, lengths: Uint32Array): Buffer {
  try {
    return native.keccak256Many(packed, lengths);
  } catch (error) {
    throw toStoreError(error);
  }
}
