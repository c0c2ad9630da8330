/**
 * Block replays paused between transactions. Tracing transaction k of a block first replays
 * the k transactions before it; tracing a block's transactions one by one (as explorers and
 * indexers do) would replay the block over and over. After a trace, the replay — holding the
 * state after the traced transaction — is kept here, and the next trace of a later
 * transaction of the same block resumes it. Replays are found by block hash, so a block
 * re-executed after a rollback (another hash) never resumes the replay of the block it
 * replaced. A replay is handed to one trace at a time (taken out, put back), so concurrent
 * traces never share a VM.
 */
import { LRUCache } from 'lru-cache';

import type { BlockReplay } from './block-replay.js';

/** The most recently paused replays, by block hash. */
export class PausedReplays {
  readonly #paused: LRUCache<string, BlockReplay>;

  /** Keeps at most `max` paused replays (least recently paused out first). */
  constructor(max = 4) {
    this.#paused = new LRUCache({ max });
  }

  /** Takes the replay of `blockHash` if it has not run past `index`; the caller then owns it. */
  take(blockHash: string, index: number): BlockReplay | undefined {
    const paused = this.#paused.get(blockHash);
    if (paused === undefined || paused.nextIndex > index) return undefined;
    this.#paused.delete(blockHash);
    return paused;
  }

  /** Keeps `replay` for the next trace of its block. */
  put(replay: BlockReplay): void {
    this.#paused.set(replay.blockHash, replay);
  }
}
