/** Account state after a block: balance, nonce, code, storage (and the proofs this node cannot give). */
import { RpcError, expectParams, invalidArgument, type MethodTable } from '../../jsonrpc/index.js';
import { proofsUnsupported } from '../errors.js';
import { formatStorageWord } from '../format.js';
import { bytesHex, quantity } from '../hex.js';
import { parseAddress, parseBlockNumberOrHash, parseHash, parseStorageSlot } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** geth's cap on the slots of one eth_getStorageValues. */
export const MAX_STORAGE_VALUES_SLOTS = 1024;

/** eth_getStorageValues' request: address → slots, with geth's bounds checked before any read. */
function parseStorageRequests(value: unknown, index: number): { address: Uint8Array; key: string; slots: Uint8Array[] }[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type map[common.Address][]common.Hash');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  let total = 0;
  for (const [, slots] of entries) {
    if (!Array.isArray(slots)) throw invalidArgument(index, 'json: cannot unmarshal non-array into Go value of type []common.Hash');
    total += slots.length;
    if (total > MAX_STORAGE_VALUES_SLOTS) throw new RpcError(CLIENT_LIMIT_EXCEEDED, `too many slots (max ${MAX_STORAGE_VALUES_SLOTS})`);
  }
  if (total === 0) throw RpcError.invalidParams('empty request');
  return entries.map(([addressText, slots]) => {
    const address = parseAddress(addressText, index);
    return { address, key: bytesHex(address), slots: (slots as unknown[]).map((slot) => parseHash(slot, index)) };
  });
}

/** geth's code for a request past a per-call limit of eth_getStorageValues. */
const CLIENT_LIMIT_EXCEEDED = -38026;

/** eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt, eth_getStorageValues, eth_getProof. */
export function stateMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_getBalance: (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      return then(backend.getBalance(address, parseBlockNumberOrHash(params[1] ?? 'latest', 1)), quantity);
    },
    eth_getTransactionCount: (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      if (at.kind === 'tag' && at.tag === 'pending') return then(backend.getPendingNonce(address), quantity);
      return then(backend.getNonce(address, at), quantity);
    },
    eth_getCode: (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      return then(backend.getCode(address, parseBlockNumberOrHash(params[1] ?? 'latest', 1)), bytesHex);
    },
    eth_getStorageAt: (params) => {
      expectParams(params, 2, 3);
      const address = parseAddress(params[0], 0);
      const slot = parseStorageSlot(params[1], 1);
      return then(backend.getStorageAt(address, slot, parseBlockNumberOrHash(params[2] ?? 'latest', 2)), formatStorageWord);
    },
    eth_getStorageValues: async (params) => {
      expectParams(params, 2);
      const requests = parseStorageRequests(params[0], 0);
      const at = parseBlockNumberOrHash(params[1], 1);
      const out: Record<string, string[]> = {};
      for (const request of requests) {
        const words: string[] = [];
        for (const slot of request.slots) words.push(formatStorageWord(await backend.getStorageAt(request.address, slot, at)));
        // Two spellings of one address in the request are one account in the answer, as in geth's map.
        out[request.key] = [...(out[request.key] ?? []), ...words];
      }
      return out;
    },
    eth_getProof: (params) => {
      expectParams(params, 2, 3);
      parseAddress(params[0], 0);
      throw proofsUnsupported();
    },
  };
}
