/**
 * Block re-executions paused between transactions. Tracing transaction k of a block first
 * replays the k transactions before it; tracing a block's transactions one by one (as
 * explorers and indexers do) would replay the block over and over. After a trace, the VM —
 * holding the state after the traced transaction — is kept here, and the next trace of a
 * later transaction of the same block resumes from it. A replay is handed to one trace at a
 * time (taken out, put back), so concurrent traces never share a VM.
 */
import type { VM } from '@ethereumjs/vm';

/** A re-execution of a block that stopped before transaction `nextIndex`. */
export interface PausedReplay {
  vm: VM;
  nextIndex: number;
  /** Gas the block's transactions before `nextIndex` used. */
  gasUsed: bigint;
  /** Logs they emitted. */
  logCount: number;
}

/** The most recently paused replays, by block hash. */
export class PausedReplays {
  readonly #paused = new Map<string, PausedReplay>();

  /** Keeps at most `max` paused replays (oldest out first). */
  constructor(private readonly max = 4) {}

  /** Takes the replay of `blockHash` if it has not run past `index`; the caller then owns it. */
  take(blockHash: string, index: number): PausedReplay | undefined {
    const paused = this.#paused.get(blockHash);
    if (paused === undefined || paused.nextIndex > index) return undefined;
    this.#paused.delete(blockHash);
    return paused;
  }

  /** Keeps `paused` for the next trace of `blockHash`. */
  put(blockHash: string, paused: PausedReplay): void {
    this.#paused.delete(blockHash);
    if (this.#paused.size >= this.max) this.#paused.delete(this.#paused.keys().next().value!);
    this.#paused.set(blockHash, paused);
  }

  /** Forgets every paused replay (after a rollback replaced blocks). */
  clear(): void {
    this.#paused.clear();
  }
}
