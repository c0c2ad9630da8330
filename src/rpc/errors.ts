/**
 * The JSON-RPC errors of typed errors from the layers below, where the dispatcher's default
 * (an ordinary error is -32000 with its message) is not what clients expect.
 */
import { ExecutionBusyError } from '../evm/errors.js';
import { SimulationError } from '../evm/simulate.js';
import { TraceBusyError } from '../trace/service-errors.js';
import { RpcError } from './jsonrpc/index.js';

/** The RpcError `thrown` answers with, or undefined to leave it to the dispatcher's default. */
export function rpcErrorOf(thrown: unknown): RpcError | undefined {
  if (thrown instanceof RpcError) return thrown;
  // A full trace slot is a limit, as geth reports it: clients back off and retry.
  if (thrown instanceof TraceBusyError || thrown instanceof ExecutionBusyError) return RpcError.limitExceeded(thrown.message);
  // eth_simulateV1's refusals carry the execution-apis codes (-38010 … -38026, -32602).
  if (thrown instanceof SimulationError) return new RpcError(thrown.code, thrown.message);
  return undefined;
}
