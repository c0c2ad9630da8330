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

/** A filter id that names no installed filter (unknown, uninstalled or expired), as geth says it. */
export function filterNotFound(): RpcError {
  return RpcError.server('filter not found');
}

/** The filter table is full: a limit, so clients back off, with what to do about it. */
export function tooManyFilters(max: number): RpcError {
  return RpcError.limitExceeded(
    `too many filters: max-filters is ${max}; uninstall filters no longer polled (eth_uninstallFilter) or wait for them to expire`,
  );
}
