/** Re-running the leading transactions of a stored block, untraced, before the one a trace is about. */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { runTx, type VM } from '@ethereumjs/vm';

import { decodeTx } from '../evm/validate.js';

/** Where the replayed transactions left the block: the gas and the logs they used. */
export interface ReplayedTxs {
  gasUsed: bigint;
  logCount: number;
}

/**
 * Runs the first `count` of `rawTxs` in `block` on `vm` (their writes stay in its state
 * manager) and returns the block gas and logs they used, which the next transaction follows.
 */
export async function replayLeadingTxs(vm: VM, common: Common, block: Block, rawTxs: readonly Uint8Array[], count: number): Promise<ReplayedTxs> {
  let gasUsed = 0n;
  let logCount = 0;
  for (let index = 0; index < count && index < rawTxs.length; index++) {
    const decoded = decodeTx(rawTxs[index]!, common);
    const run = await runTx(vm, { tx: decoded.tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true });
    gasUsed += run.totalGasSpent;
    logCount += run.receipt.logs.length;
  }
  return { gasUsed, logCount };
}
