/** Typed reasons a transaction is refused (mempool admission) or skipped (block execution). */

/** Machine-readable reason codes of {@link TxRejectedError}. */
export type TxRejectionCode =
  | 'invalid_encoding'
  | 'unsupported_type'
  | 'invalid_signature'
  | 'wrong_chain_id'
  | 'nonce_too_low'
  | 'nonce_too_high'
  | 'insufficient_funds'
  | 'intrinsic_gas_too_low'
  | 'fee_below_base_fee'
  | 'tip_above_fee_cap'
  | 'block_gas_limit_reached'
  | 'exceeds_block_gas_limit'
  | 'unprotected'
  | 'execution_failed';

/** A transaction that cannot be included; the message follows geth's wording. */
export class TxRejectedError extends Error {
  /** Why the transaction was refused. */
  readonly code: TxRejectionCode;

  constructor(code: TxRejectionCode, message: string) {
    super(message);
    this.name = 'TxRejectedError';
    this.code = code;
  }
}

/** The bytes do not decode as a transaction envelope. */
export class InvalidTxEncodingError extends TxRejectedError {
  constructor(detail: string) {
    super('invalid_encoding', `transaction could not be decoded: ${detail}`);
    this.name = 'InvalidTxEncodingError';
  }
}

/** A transaction type the chain does not execute (blob transactions). */
export class UnsupportedTxTypeError extends TxRejectedError {
  constructor(type: number) {
    super('unsupported_type', `transaction type ${type} not supported`);
    this.name = 'UnsupportedTxTypeError';
  }
}

/** The signature does not recover to a sender. */
export class InvalidSignatureError extends TxRejectedError {
  constructor(detail = 'invalid transaction v, r, s values') {
    super('invalid_signature', `invalid sender: ${detail}`);
    this.name = 'InvalidSignatureError';
  }
}

/** The transaction is signed for another chain. */
export class WrongChainIdError extends TxRejectedError {
  constructor(readonly expected: bigint, readonly actual: bigint | undefined) {
    super('wrong_chain_id', `invalid chain id: have ${actual ?? 'none'}, want ${expected}`);
    this.name = 'WrongChainIdError';
  }
}

/** The nonce was already used. */
export class NonceTooLowError extends TxRejectedError {
  constructor(address: string, readonly txNonce: bigint, readonly stateNonce: bigint) {
    super('nonce_too_low', `nonce too low: address ${address}, tx: ${txNonce} state: ${stateNonce}`);
    this.name = 'NonceTooLowError';
  }
}

/** The nonce leaves a gap after the sender's current nonce. */
export class NonceTooHighError extends TxRejectedError {
  constructor(address: string, readonly txNonce: bigint, readonly stateNonce: bigint) {
    super('nonce_too_high', `nonce too high: address ${address}, tx: ${txNonce} state: ${stateNonce}`);
    this.name = 'NonceTooHighError';
  }
}

/** The sender cannot pay gas × fee cap + value. */
export class InsufficientFundsError extends TxRejectedError {
  constructor(address: string, readonly have: bigint, readonly want: bigint) {
    super('insufficient_funds', `insufficient funds for gas * price + value: address ${address} have ${have} want ${want}`);
    this.name = 'InsufficientFundsError';
  }
}

/** The gas limit is below the intrinsic gas (or the EIP-7623 calldata floor). */
export class IntrinsicGasTooLowError extends TxRejectedError {
  constructor(readonly have: bigint, readonly want: bigint) {
    super('intrinsic_gas_too_low', `intrinsic gas too low: have ${have}, want ${want}`);
    this.name = 'IntrinsicGasTooLowError';
  }
}

/** The fee cap is below the block's base fee. */
export class FeeBelowBaseFeeError extends TxRejectedError {
  constructor(address: string, readonly maxFeePerGas: bigint, readonly baseFee: bigint) {
    super('fee_below_base_fee', `max fee per gas less than block base fee: address ${address}, maxFeePerGas: ${maxFeePerGas}, baseFee: ${baseFee}`);
    this.name = 'FeeBelowBaseFeeError';
  }
}

/** The priority fee exceeds the fee cap. */
export class TipAboveFeeCapError extends TxRejectedError {
  constructor(address: string, readonly tip: bigint, readonly feeCap: bigint) {
    super('tip_above_fee_cap', `max priority fee per gas higher than max fee per gas: address ${address}, maxPriorityFeePerGas: ${tip}, maxFeePerGas: ${feeCap}`);
    this.name = 'TipAboveFeeCapError';
  }
}

/** The block has no room left for the transaction's gas limit. */
export class BlockGasLimitReachedError extends TxRejectedError {
  constructor(readonly gasLimit: bigint, readonly gasLeft: bigint) {
    super('block_gas_limit_reached', `gas limit reached: tx gas ${gasLimit}, block gas left ${gasLeft}`);
    this.name = 'BlockGasLimitReachedError';
  }
}

/** The gas limit is above the block gas limit, so no block can ever include the transaction. */
export class ExceedsBlockGasLimitError extends TxRejectedError {
  constructor(readonly gasLimit: bigint, readonly blockGasLimit: bigint) {
    super('exceeds_block_gas_limit', 'exceeds block gas limit');
    this.name = 'ExceedsBlockGasLimitError';
  }
}

/** A legacy transaction signed without a chain id (pre-EIP-155): it could be replayed on any chain. */
export class UnprotectedTxError extends TxRejectedError {
  constructor() {
    super('unprotected', 'only replay-protected (EIP-155) transactions allowed over RPC');
    this.name = 'UnprotectedTxError';
  }
}

/** The VM refused the transaction for a reason the checks above did not catch. */
export class TxExecutionFailedError extends TxRejectedError {
  constructor(detail: string) {
    super('execution_failed', `transaction could not be executed: ${detail}`);
    this.name = 'TxExecutionFailedError';
  }
}

/**
 * eth_call / eth_estimateGas refused because every execution worker is busy and the queue
 * behind them is full: a limit, as geth reports one, that clients back off from and retry.
 */
export class ExecutionBusyError extends Error {
  constructor(readonly queued: number) {
    super(`call rejected: every execution worker is busy and ${queued} calls are queued; retry later or raise execution-workers`);
    this.name = 'ExecutionBusyError';
  }
}
