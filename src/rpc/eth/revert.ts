/** Decoding of revert data into the reason geth appends to "execution reverted". */
import { RpcError } from '../jsonrpc/index.js';
import { revertReason } from '../../evm/revert-reason.js';
import { bytesHex } from './hex.js';

/** The reason encoded in revert data (`Error(string)` or `Panic(uint256)`), or undefined. */
export const decodeRevertReason = revertReason;

/** geth's code-3 error for a reverted call: the decoded reason in the message, the raw bytes as data. */
export function revertError(data: Uint8Array): RpcError {
  return RpcError.executionReverted(bytesHex(data), decodeRevertReason(data));
}
