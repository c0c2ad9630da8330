/**
 * The stage times of the block being made: each stage's duration goes to the node's metrics
 * and is kept until the producer logs the block, so one debug line per block carries them all.
 */
import type { BlockStageName } from './metrics.js';

/** Where stage durations are recorded for good (the node's metrics). */
export interface BlockStageSink {
  /** Records how long one stage of one block took, in seconds. */
  observeBlockStage(stage: BlockStageName, seconds: number): void;
}

/** Milliseconds per stage of one block (a stage that did not run is 0). */
export type BlockStageMs = Record<BlockStageName, number>;

/** Collects one block's stage durations while forwarding each to the sink. */
export class BlockStageTimes {
  #ms: BlockStageMs = { execute: 0, sc_commit: 0, ss_apply: 0, sign: 0, block_store: 0 };

  constructor(private readonly sink: BlockStageSink) {}

  /** Records one stage of the current block. */
  record(stage: BlockStageName, seconds: number): void {
    this.#ms[stage] += seconds * 1000;
    this.sink.observeBlockStage(stage, seconds);
  }

  /** The current block's stage times, rounded to 0.1 ms, and a fresh start for the next block. */
  take(): BlockStageMs {
    const taken = this.#ms;
    this.#ms = { execute: 0, sc_commit: 0, ss_apply: 0, sign: 0, block_store: 0 };
    for (const stage of Object.keys(taken) as BlockStageName[]) taken[stage] = Math.round(taken[stage] * 10) / 10;
    return taken;
  }
}
