/** A StateReader over an @ethereumjs StateManager (reads see the running transaction's writes). */
import type { StateManagerInterface } from '@ethereumjs/common';
import { createAddressFromString } from '@ethereumjs/util';

import { bytesHex, hexBytes } from './hex.js';
import type { Hex, StateReader } from './types.js';

/** Reads accounts, code and storage from `stateManager`. */
export function stateReaderOf(stateManager: StateManagerInterface): StateReader {
  const account = (address: Hex) => stateManager.getAccount(createAddressFromString(address));
  return {
    exists: async (address) => (await account(address)) !== undefined,
    balance: async (address) => (await account(address))?.balance ?? 0n,
    nonce: async (address) => (await account(address))?.nonce ?? 0n,
    code: (address) => stateManager.getCode(createAddressFromString(address)),
    storage: async (address, slot) => {
      const value = await stateManager.getStorage(createAddressFromString(address), hexBytes(slot));
      const padded = new Uint8Array(32);
      padded.set(value, 32 - value.length);
      return bytesHex(padded);
    },
  };
}
