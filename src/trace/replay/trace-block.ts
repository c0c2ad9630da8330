/** Tracing some or all transactions of a stored block, resuming a paused replay when one fits. */
import type { ExecutionContext } from '../../app/execution-context.js';
import type { StateView } from '../../evm/state-manager.js';
import { bytesHex } from '../hex.js';
import { BlockReplay, type TracedBlockTx, type TracerFor } from './block-replay.js';
import type { PausedReplays } from './paused-replays.js';

/** Which transactions of a block to trace. */
export interface BlockTraceRange {
  /** A tracer for each transaction to trace. */
  readonly tracerFor: TracerFor;
  /** The last transaction to run (default: the block's last). */
  readonly lastIndex?: number;
  /** The first transaction `tracerFor` may trace (default 0); a paused replay short of it is resumed. */
  readonly firstTraced?: number;
}

/** A stored block to replay. */
export interface ReplayedBlock {
  /** The hash the chain serves it under (what a paused replay is found by). */
  readonly hash: Uint8Array;
  readonly txs: readonly Uint8Array[];
  /** How it executes; made only when no paused replay fits (it builds the EVM's block). */
  readonly context: () => ExecutionContext;
}

/**
 * Traces the transactions of `block` that `range` selects, on its parent's state
 * (`parentView`). A paused replay of the block that has not run past `firstTraced` is resumed
 * instead of starting over; a replay stopping short of the block's end is paused in `paused`
 * for the next trace.
 */
export async function traceBlockTxs(paused: PausedReplays, block: ReplayedBlock, parentView: () => StateView, range: BlockTraceRange): Promise<TracedBlockTx[]> {
  const replay = paused.take(bytesHex(block.hash), range.firstTraced ?? 0) ?? (await BlockReplay.start(block.context(), block.txs, parentView));
  const traced = await replay.runThrough(range.lastIndex ?? block.txs.length - 1, range.tracerFor);
  if (!replay.done) paused.put(replay);
  return traced;
}
