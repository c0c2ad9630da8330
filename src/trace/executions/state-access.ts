/**
 * debug_traceStateAccess's store footprint: the module-store reads one stored transaction's
 * execution makes. The block's earlier transactions run first on the parent state; their
 * writes then become the base the transaction reads from, through a recording view, so the
 * footprint holds exactly the pre-state this transaction observed (keys it wrote before
 * reading never reach the stores, and each key is recorded once).
 */
import { runTx } from '@ethereumjs/vm';

import type { ExecutionContext } from '../../app/execution-context.js';
import type { StateView } from '../../evm/state-manager.js';
import { BlockReplay } from '../replay/block-replay.js';
import { RecordingStateView, viewWithChangesets, type ModuleReads } from './store-reads.js';

/** The module-store reads of transaction `index` of the block `context` describes, per store name. */
export async function storeReadsOfTx(context: ExecutionContext, parentView: StateView, rawTxs: readonly Uint8Array[], index: number): Promise<Map<string, ModuleReads>> {
  const raw = rawTxs[index];
  if (raw === undefined) throw new RangeError(`transaction index ${index} is outside a block of ${rawTxs.length}`);
  const before = await BlockReplay.start(context, rawTxs, () => parentView);
  await before.runThrough(index - 1);

  const recorder = new RecordingStateView(viewWithChangesets(parentView, before.overlay().changesets()));
  const vm = await context.createVM(recorder);
  await runTx(vm, { tx: context.decodeTx(raw).tx, block: context.block, blockGasUsed: before.gasUsed, skipHardForkValidation: true });
  return recorder.footprint();
}
