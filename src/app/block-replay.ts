/** Re-running the leading transactions of a stored block, untraced, before the one a trace is about. */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { runTx, type VM } from '@ethereumjs/vm';

import { decodeTx } from '../evm/validate.js';

/**
 * Runs the first `count` of `rawTxs` in `block` on `vm` (their writes stay in its state
 * manager) and returns the block gas they used, which the next transaction starts from.
 */
export async function replayLeadingTxs(vm: VM, common: Common, block: Block, rawTxs: readonly Uint8Array[], count: number): Promise<bigint> {
  let gasUsed = 0n;
  for (let index = 0; index < count && index < rawTxs.length; index++) {
    const decoded = decodeTx(rawTxs[index]!, common);
    gasUsed += (await runTx(vm, { tx: decoded.tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true })).totalGasSpent;
  }
  return gasUsed;
}
