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

/** Thrown (by the backend or the methods) when state at a height is no longer retained. */
export class StatePrunedError extends Error {
  readonly requested: number;
  readonly earliest: number;

  constructor(requested: number, earliest: number) {
    super(
      `state at block ${requested} is not available: the earliest retained block is ${earliest} ` +
        `(older state was pruned, see ss-keep-recent); query block ${earliest} or later, or use an archive node`,
    );
    this.name = 'StatePrunedError';
    this.requested = requested;
    this.earliest = earliest;
  }
}

/** geth's answer for a block number that is not (yet) in the chain. */
export function headerNotFound(): RpcError {
  return RpcError.server('header not found');
}

/** geth's answer for a block hash that is not known. */
export function headerForHashNotFound(): RpcError {
  return RpcError.server('header for hash not found');
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

/** Maps backend errors to RPC errors; anything else passes through unchanged. */
export function backendFailure(thrown: unknown): unknown {
  if (thrown instanceof StatePrunedError || thrown instanceof TransactionRejectedError) return RpcError.server(thrown.message);
  return thrown;
}
