/** Errors the backend throws and the RPC errors the eth methods answer with. */
import { ErrorCode, RpcError } from '../jsonrpc/index.js';

/** Why the mempool refused a transaction. */
export type RejectReason =
  | 'decode'
  | 'already-known'
  | 'nonce-too-low'
  | 'nonce-too-high'
  | 'insufficient-funds'
  | 'underpriced'
  | 'fee-below-base-fee'
  | 'intrinsic-gas'
  | 'gas-limit'
  | 'wrong-chain-id'
  | 'invalid-sender'
  | 'mempool-full'
  | 'other';

/**
 * Thrown by `EthBackend.sendRawTransaction` when admission fails. The message is the one
 * clients see (geth's wording, e.g. "nonce too low: next nonce 3, tx nonce 1").
 */
export class TransactionRejectedError extends Error {
  readonly reason: RejectReason;

  constructor(reason: RejectReason, message: string) {
    super(message);
    this.name = 'TransactionRejectedError';
    this.reason = reason;
  }
}

/** eth_subscribe over HTTP (geth: -32601 "notifications not supported"). */
export function notificationsUnsupported(): RpcError {
  return new RpcError(ErrorCode.MethodNotFound, 'notifications not supported');
}

/** eth_getProof: SS keeps raw key/values, so there is nothing to build a proof from. */
export function proofsUnsupported(): RpcError {
  return RpcError.server(
    'historical proofs are not supported: the state store keeps raw key/values only and cannot build Merkle proofs; use eth_getStorageAt / eth_getBalance instead',
  );
}
