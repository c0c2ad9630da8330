/** Typed reasons a transaction is refused (mempool admission) or skipped (block execution), and geth's core/vm texts for EVM failures. */
import type { ExecResult } from '@ethereumjs/evm';

import { stackArity } from './opcode-stack.js';

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

/** The step a frame last began, which explains why the frame failed. */
export interface FailedStep {
  op: number;
  opName: string;
  gas: bigint;
  cost: bigint;
  stackLength: number;
}

const STACK_LIMIT = 1024;
const SSTORE_SENTRY_GAS = 2300n;
const SSTORE = 0x55;
const INVALID = 0xfe;
const BLAKE2F_INPUT_LENGTH = 213;
/** The BN254 base field modulus: a coordinate at or above it is not a field element. */
const BN254_P = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;

/** Hex as Go's `%#x` prints a byte. */
function byteHex(op: number): string {
  return `0x${op.toString(16)}`;
}

/** Whether any 32-byte word of `input` at the given offsets (zero-padded on the right) is ≥ the BN254 modulus. */
function bn254CoordinateTooLarge(input: Uint8Array, words: readonly number[]): boolean {
  return words.some((offset) => {
    const word = new Uint8Array(32);
    word.set(input.subarray(offset, offset + 32));
    return BigInt(`0x${Buffer.from(word).toString('hex')}`) >= BN254_P;
  });
}

/** Whether a BLS12-381 field element of 64 bytes at `offset` has non-zero top 16 bytes (geth checks them first). */
function blsTopBytesSet(input: Uint8Array): boolean {
  for (let offset = 0; offset + 64 <= input.length; offset += 64) {
    if (input.subarray(offset, offset + 16).some((b) => b !== 0)) return true;
  }
  return false;
}

/**
 * geth's error of precompile `address` (its number: 1 … 0x100) for an @ethereumjs/evm
 * failure `reason`: the precompile's own error, which @ethereumjs reports in general terms
 * (its BN254 library failing is a `revert`, a pairing input of the wrong size `invalid input
 * length`). A precompile never reverts, so here `revert` is always such a failure.
 */
export function gethPrecompileError(address: number, reason: string, input: Uint8Array): string {
  if (reason === 'out of gas') return 'out of gas';
  switch (address) {
    case 0x06:
    case 0x07:
    case 0x08: {
      if (address === 0x08 && reason === 'invalid input length') return 'bad elliptic curve pairing size';
      const words = address === 0x06 ? [0, 32, 64, 96] : address === 0x07 ? [0, 32] : [0, 32, 64, 96, 128, 160];
      return bn254CoordinateTooLarge(input, words) ? 'bn256: coordinate exceeds modulus' : 'bn256: malformed point';
    }
    case 0x09:
      return input.length === BLAKE2F_INPUT_LENGTH ? 'invalid final flag' : 'invalid input length';
    case 0x0a:
      if (reason === 'invalid input length') return 'invalid input length';
      if (reason === 'kzg commitment does not match versioned hash') return 'mismatched versioned hash';
      return 'error verifying kzg proof';
    default:
      if (address >= 0x0b && address <= 0x11) {
        if (reason === 'invalid input length' || reason === 'input is empty') return 'invalid input length';
        if (reason === 'fp point not in field') return blsTopBytesSet(input) ? 'invalid field element top bytes' : 'invalid fp.Element encoding';
        if (reason === 'point not on curve') return 'invalid point: not on curve';
      }
      return reason === 'revert' ? 'execution reverted' : reason;
  }
}

/** The precompile number `address` (20 bytes or 0x-hex) stands for, or undefined for any other account. */
export function precompileNumber(address: Uint8Array | string | undefined): number | undefined {
  if (address === undefined) return undefined;
  const hex = typeof address === 'string' ? address.replace(/^0x/, '') : Buffer.from(address).toString('hex');
  if (hex.length !== 40 || !/^0{36}/.test(hex)) return undefined;
  const n = parseInt(hex.slice(36), 16);
  return n >= 1 && n <= 0x100 ? n : undefined;
}

/**
 * geth's core/vm text for an @ethereumjs/evm failure `reason` of a frame: given its last
 * step (none for a precompile, which `precompile` then names), whether EIP-2200's SSTORE
 * sentry applies, and the frame's input. Every place that shows an EVM error (call results,
 * tracers, simulations) words it through here.
 */
export function gethVmError(reason: string, step: FailedStep | undefined, sentryActive: boolean, input: Uint8Array, precompile?: number): string {
  if (step === undefined && precompile !== undefined) return gethPrecompileError(precompile, reason, input);
  if (reason.startsWith('invalid JUMP')) return 'invalid jump destination';
  switch (reason) {
    case 'revert':
      return 'execution reverted';
    case 'out of gas':
      if (step?.op === SSTORE && sentryActive && step.gas <= SSTORE_SENTRY_GAS) {
        return 'out of gas: not enough gas for reentrancy sentry';
      }
      return 'out of gas';
    case 'code store out of gas':
      return 'contract creation code storage out of gas';
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded';
    case 'stack underflow': {
      if (step === undefined) return 'stack underflow';
      return `stack underflow (${step.stackLength} <=> ${stackArity(step.op).pops})`;
    }
    case 'stack overflow': {
      if (step === undefined) return 'stack overflow';
      const { pops, pushes } = stackArity(step.op);
      return `stack limit reached ${step.stackLength} (${STACK_LIMIT + pops - pushes})`;
    }
    case 'invalid opcode':
      if (step === undefined) return 'invalid opcode';
      return step.op === INVALID ? 'invalid opcode: INVALID' : `invalid opcode: opcode ${byteHex(step.op)} not defined`;
    case 'value out of range':
      // Only blake2f fails this way without running code; in code it is RETURNDATACOPY's bounds check (returndata-bounds.ts).
      if (step === undefined) return input.length === BLAKE2F_INPUT_LENGTH ? 'invalid final flag' : 'invalid input length';
      return 'return data out of bounds';
    case 'static state change':
      return 'write protection';
    case 'create collision':
      return 'contract address collision';
    case 'insufficient balance':
      return 'insufficient balance for transfer';
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef';
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded';
    case 'value overflow':
      return 'gas uint64 overflow';
    default:
      return reason;
  }
}

/**
 * geth's text for the failure of a message's outermost frame (eth_call, simulations), from
 * what the EVM leaves of it: the opcode it stopped at and its stack, or, for a message to a
 * precompile, the precompile's own error. The SSTORE sentry is not told apart here (the gas
 * the step began with is gone), so an SSTORE short of gas is `out of gas`.
 */
export function gethMessageError(execResult: ExecResult, to: Uint8Array | undefined, input: Uint8Array): string | undefined {
  const reason = execResult.exceptionError?.error;
  if (reason === undefined) return undefined;
  const runState = execResult.runState;
  const step: FailedStep | undefined =
    runState === undefined ? undefined : { op: runState.opCode, opName: '', gas: runState.gasLeft, cost: 0n, stackLength: runState.stack.length };
  return gethVmError(reason, step, false, input, runState === undefined ? precompileNumber(to) : undefined);
}
