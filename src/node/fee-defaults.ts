/**
 * geth's fee defaults for a message run as a transaction (eth_createAccessList): a request
 * that names no complete fee mechanism gets the suggested tip and, after London, a fee cap
 * of the tip plus twice the block's base fee, so the sender's balance is checked against
 * what a real transaction would cost.
 */
import type { CallRequest } from '../rpc/eth/index.js';
import { withFields } from '../util/objects.js';

/** The block facts the defaults come from. */
export interface FeeBasis {
  /** The base fee of the block the message runs on. */
  baseFee: bigint;
  /** Whether that block has a base fee at all (London active). */
  london: boolean;
  /** The suggested priority fee (eth_maxPriorityFeePerGas). */
  tip: bigint;
}

/** A request whose fee fields cannot be completed, in geth's words. */
export class FeeDefaultsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeeDefaultsError';
  }
}

/** `request` with geth's default fees filled in (setFeeDefaults); throws FeeDefaultsError for inconsistent fees. */
export function withFeeDefaults(request: CallRequest, basis: FeeBasis): CallRequest {
  const { gasPrice, maxFeePerGas, maxPriorityFeePerGas } = request;
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw new FeeDefaultsError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  if (maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined) {
    if (maxFeePerGas === 0n) throw new FeeDefaultsError('maxFeePerGas must be non-zero');
    checkCapAboveTip(maxFeePerGas, maxPriorityFeePerGas);
    return request;
  }
  if (gasPrice !== undefined) {
    if (gasPrice === 0n && basis.london) throw new FeeDefaultsError('gasPrice must be non-zero after london fork');
    return request;
  }
  if (!basis.london) {
    if (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined) {
      throw new FeeDefaultsError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
    }
    return withFields(request, { gasPrice: basis.tip });
  }
  const tip = maxPriorityFeePerGas ?? basis.tip;
  // Twice the base fee leaves room for a rising base fee, as a wallet would.
  const cap = maxFeePerGas ?? tip + 2n * basis.baseFee;
  checkCapAboveTip(cap, tip);
  return withFields(request, { maxFeePerGas: cap, maxPriorityFeePerGas: tip });
}

function checkCapAboveTip(cap: bigint, tip: bigint): void {
  if (cap < tip) throw new FeeDefaultsError(`maxFeePerGas (0x${cap.toString(16)}) < maxPriorityFeePerGas (0x${tip.toString(16)})`);
}
