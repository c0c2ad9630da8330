/**
 * The re-execution of a stored block from its parent's state, one transaction at a time. Every
 * trace of a mined transaction, debug_traceCall with `txIndex` and debug_traceStateAccess run
 * the block's transactions through one of these; it can stop before any transaction and
 * carry on later from there.
 */
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';

import type { ExecutionContext } from '../../app/execution-context.js';
import { OverlayStateManager, type StateView } from '../../evm/state-manager.js';
import { bytesHex } from '../hex.js';
import { traceTransaction } from '../trace-tx.js';
import type { Hex, JsonValue, Tracer } from '../types.js';

/** One traced transaction of a block. */
export interface TracedBlockTx {
  readonly txHash: Uint8Array;
  readonly result: JsonValue;
}

/** Which transactions of a replay to trace: a tracer for those, undefined for the rest. */
export type TracerFor = (index: number) => Tracer | undefined;

/** Transactions this thread's replays ran untraced, to reach the state a trace starts from. */
let replayedUntraced = 0;

/** How many transactions this thread's block replays have run untraced since it started. */
export function replayedTransactions(): number {
  return replayedUntraced;
}

/** A block's transactions re-executed in order on one VM. */
export class BlockReplay {
  /** The block's hash as 0x hex (what paused replays are found by). */
  readonly blockHash: Hex;
  #nextIndex = 0;
  #gasUsed = 0n;
  #logCount = 0;

  private constructor(
    private readonly context: ExecutionContext,
    private readonly rawTxs: readonly Uint8Array[],
    /** The VM, holding the state after the transactions run so far. */
    readonly vm: VM,
  ) {
    this.blockHash = bytesHex(context.blockHash);
  }

  /**
   * A replay of the block `context` describes, before its first transaction; `parentView` is
   * its parent's state, read only when the context does not carry its own.
   */
  static async start(context: ExecutionContext, rawTxs: readonly Uint8Array[], parentView: () => StateView): Promise<BlockReplay> {
    return new BlockReplay(context, rawTxs, await context.createVM(context.parentState ?? parentView()));
  }

  /** The transaction the replay runs next. */
  get nextIndex(): number {
    return this.#nextIndex;
  }

  /** Gas the transactions run so far used (the next one's block gas). */
  get gasUsed(): bigint {
    return this.#gasUsed;
  }

  /** Logs the transactions run so far emitted (the next one's first log index). */
  get logCount(): number {
    return this.#logCount;
  }

  /**
   * The replay's state manager as an overlay over the parent's state, whose writes can be
   * read back as changesets; only the chain's own execution contexts build VMs on one.
   */
  overlay(): OverlayStateManager {
    const state = this.vm.stateManager;
    if (!(state instanceof OverlayStateManager)) throw new TypeError('the replay does not run on an overlay of the parent state');
    return state;
  }

  /** Whether every transaction of the block has run. */
  get done(): boolean {
    return this.#nextIndex >= this.rawTxs.length;
  }

  /**
   * Runs the transactions from `nextIndex` through `lastIndex` (clamped to the block) and
   * returns the traces of those `tracerFor` gives a tracer.
   */
  async runThrough(lastIndex: number, tracerFor: TracerFor = () => undefined): Promise<TracedBlockTx[]> {
    const { block } = this.context;
    const traced: TracedBlockTx[] = [];
    for (; this.#nextIndex <= lastIndex && this.#nextIndex < this.rawTxs.length; this.#nextIndex++) {
      const index = this.#nextIndex;
      const decoded = this.context.decodeTx(this.rawTxs[index]!);
      const tracer = tracerFor(index);
      const options = { blockGasUsed: this.#gasUsed, skipHardForkValidation: true };
      let run: RunTxResult;
      if (tracer) {
        const place = { blockHash: this.blockHash, txIndex: index, txHash: bytesHex(decoded.hash) };
        const outcome = await traceTransaction(this.vm, decoded.tx, block, tracer, options, place, this.#logCount);
        traced.push({ txHash: decoded.hash, result: outcome.result });
        run = outcome.run;
      } else {
        run = await runTx(this.vm, { tx: decoded.tx, block, ...options });
        replayedUntraced++;
      }
      this.#gasUsed += run.totalGasSpent;
      this.#logCount += run.receipt.logs.length;
    }
    return traced;
  }
}
