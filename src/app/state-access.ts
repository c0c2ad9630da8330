/**
 * debug_traceStateAccess's store footprint: the module-store reads one stored transaction's
 * execution makes. The block's earlier transactions run first on the parent state; their
 * writes then become the base the transaction reads from, through a recording view, so the
 * footprint holds exactly the pre-state this transaction observed (keys it wrote before
 * reading never reach the stores, and each key is recorded once).
 */
import type { Common } from '@ethereumjs/common';
import { runTx } from '@ethereumjs/vm';

import { evmBlock, type BlockContext } from '../evm/block-context.js';
import type { BlockHashLookup } from '../evm/block-hashes.js';
import { createChainVM } from '../evm/executor.js';
import { OverlayStateManager, type StateView } from '../evm/state-manager.js';
import { decodeTx } from '../evm/validate.js';
import { replayLeadingTxs } from './block-replay.js';
import { RecordingStateView, viewWithChangesets, type ModuleReads } from './store-reads.js';

/** The stored transaction whose reads are wanted, with what re-executing it needs. */
export interface StoredTxExecution {
  readonly common: Common;
  /** The state of the block's parent. */
  readonly parentView: StateView;
  readonly block: BlockContext;
  readonly rawTxs: readonly Uint8Array[];
  /** Position of the transaction in `rawTxs`. */
  readonly index: number;
  /** Ancestor hashes for BLOCKHASH. */
  readonly hashes: BlockHashLookup;
}

/** The module-store reads of transaction `index` of the block, per store name. */
export async function storeReadsOfTx(input: StoredTxExecution): Promise<Map<string, ModuleReads>> {
  const raw = input.rawTxs[input.index];
  if (raw === undefined) throw new RangeError(`transaction index ${input.index} is outside a block of ${input.rawTxs.length}`);
  const block = evmBlock(input.common, input.block);
  const before = new OverlayStateManager(input.parentView);
  const { gasUsed: blockGasUsed } = await replayLeadingTxs(await createChainVM(input.common, before, input.hashes), input.common, block, input.rawTxs, input.index);

  const recorder = new RecordingStateView(viewWithChangesets(input.parentView, before.changesets()));
  const vm = await createChainVM(input.common, new OverlayStateManager(recorder), input.hashes);
  await runTx(vm, { tx: decodeTx(raw, input.common).tx, block, blockGasUsed, skipHardForkValidation: true });
  return recorder.footprint();
}
