/** Account state after a block: balance, nonce, code, storage (and the proofs this node cannot give). */
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { proofsUnsupported } from '../errors.js';
import { formatStorageWord } from '../format.js';
import { bytesHex, quantity } from '../hex.js';
import { parseAddress, parseBlockNumberOrHash, parseStorageSlot } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt, eth_getProof. */
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
    eth_getProof: (params) => {
      expectParams(params, 2, 3);
      parseAddress(params[0], 0);
      throw proofsUnsupported();
    },
  };
}
