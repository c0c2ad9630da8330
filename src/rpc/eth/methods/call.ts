/** eth_call and eth_estimateGas: messages run on the state after a block, nothing written. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import type { CallOutcome, EstimateOutcome } from '../backend.js';
import { bytesHex, quantity } from '../hex.js';
import { parseBlockNumberOrHash, parseCallRequest, parseStateOverrides } from '../params.js';
import { revertError } from '../revert.js';
import { then, type EthMethodContext } from './context.js';

/** The outcome when it succeeded; geth's code-3 error for a revert, -32000 for any other failure. */
function succeeded<T extends CallOutcome | EstimateOutcome>(outcome: T): Extract<T, { status: 'success' }> {
  if (outcome.status === 'reverted') throw revertError(outcome.returnData);
  if (outcome.status === 'failed') throw RpcError.server(outcome.message);
  return outcome as Extract<T, { status: 'success' }>;
}

/** eth_call, eth_estimateGas. */
export function callMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_call: (params) => {
      expectParams(params, 1, 4);
      const request = parseCallRequest(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      const overrides = parseStateOverrides(params[2], 2);
      return then(backend.call(request, at, overrides), (outcome) => bytesHex(succeeded(outcome).returnData));
    },
    eth_estimateGas: (params) => {
      expectParams(params, 1, 3);
      const request = parseCallRequest(params[0], 0);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      const overrides = parseStateOverrides(params[2], 2);
      return then(backend.estimateGas(request, at, overrides), (outcome) => quantity(succeeded(outcome).gas));
    },
  };
}
