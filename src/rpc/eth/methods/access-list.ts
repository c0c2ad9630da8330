/** eth_createAccessList: the accounts and slots a message touches, and the gas it uses with them. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { bytesHex, quantity } from '../hex.js';
import { parseBlockNumberOrHash, parseCallRequest, parseStateOverrides } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** eth_createAccessList(call, block?, stateOverrides?). */
export function accessListMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_createAccessList: (params) => {
      if (backend.createAccessList === undefined) throw RpcError.methodNotFound('eth_createAccessList');
      expectParams(params, 1, 3);
      const request = parseCallRequest(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      const overrides = parseStateOverrides(params[2], 2);
      return then(backend.createAccessList(request, at, overrides), (outcome) => {
        if (outcome.status === 'failed') throw RpcError.server(outcome.message);
        return {
          accessList: outcome.accessList.map((entry) => ({ address: bytesHex(entry.address), storageKeys: entry.storageKeys.map(bytesHex) })),
          ...(outcome.error === undefined ? {} : { error: outcome.error }),
          gasUsed: quantity(outcome.gasUsed),
        };
      });
    },
  };
}
