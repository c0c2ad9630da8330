/** eth_call and eth_estimateGas: messages run on the state after a block, nothing written. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { bytesHex, quantity } from '../hex.js';
import { parseBlockNumberOrHash, parseCallRequest, parseStateOverrides } from '../params.js';
import { revertError } from '../revert.js';
import { then, type EthMethodContext } from './context.js';

/** eth_call, eth_estimateGas. */
export function callMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_call: (params) => {
      expectParams(params, 1, 4);
      const request = parseCallRequest(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      const overrides = parseStateOverrides(params[2], 2);
      return then(backend.call(request, at, overrides), (outcome) => {
        if (outcome.status === 'reverted') throw revertError(outcome.returnData);
        if (outcome.status === 'failed') throw RpcError.server(outcome.message);
        return bytesHex(outcome.returnData);
      });
    },
    eth_estimateGas: (params) => {
      expectParams(params, 1, 3);
      const request = parseCallRequest(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      const overrides = parseStateOverrides(params[2], 2);
      return then(backend.estimateGas(request, at, overrides), (outcome) => {
        if (outcome.status === 'reverted') throw revertError(outcome.returnData);
        if (outcome.status === 'failed') throw RpcError.server(outcome.message);
        return quantity(outcome.gas);
      });
    },
  };
}
