/**
 * The block producer of a single validator: every `timeout_commit` it reaps the mempool,
 * persists the proposal (chain/proposal.ts), executes and commits the block (App: SC → app
 * hash, SS apply), signs the header (refusing a different block at a height it signed before)
 * and stores the block with its receipts and commit. The header of block h carries the app
 * hash after block h − 1, as in CometBFT. After a crash inside these steps the node starts
 * with the persisted proposal, and the first block produced is exactly that one again.
 */
import type { App, BlockResult } from '../app/index.js';
import { storedReceipt } from '../chain/executed-receipt.js';
import { ZERO_HASH, blockHash, txRoot, type Block, type BlockHeader } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import type { BlockSigner } from '../chain/keys.js';
import type { Mempool } from '../chain/mempool.js';
import { removeProposal, writeProposal, type Proposal } from '../chain/proposal.js';
import { keccak256 } from '../util/keccak.js';
import type { ExecutedTx } from '../evm/executor.js';
import type { Logger } from '../log/logger.js';
import type { BlockStageTimes } from './block-stage-times.js';

/** What the producer needs. */
export interface ProducerDeps {
  app: App;
  store: BlockStore;
  mempool: Mempool;
  signer: BlockSigner;
  /** The validator's 20-byte consensus address (the header's proposer). */
  proposer: Uint8Array;
  logger: Logger;
  /** Called after each stored block. */
  onBlock: (block: Block & { hash: Uint8Array }, result: BlockResult) => void;
  /** Most transactions per block (default: 10,000, or as many transfers as the block gas limit holds when that is more). */
  maxTxsPerBlock?: number;
  /** Receives the sign and block_store stage times and holds the app's; logged once per block. */
  stageTimes?: BlockStageTimes;
  /** The proposal log's file (chain/proposal.ts). */
  proposalPath: string;
  /** A proposal persisted before a crash: its block is the first one produced. */
  resume?: ResumedProposal;
  /** Called once when a failure halts production; the node then stops. */
  onHalt?: (error: Error) => void;
}

/** A proposal persisted before a crash, found at start. */
export interface ResumedProposal {
  proposal: Proposal;
  /**
   * The state already holds the block: only for the chain's first block, whose state cannot be
   * rolled back below it. Every later block is rolled back and executed again instead.
   */
  executed: boolean;
}

/** Gas of a plain transfer: a block's gas limit over it is the most transactions the block can hold. */
const TRANSFER_GAS = 21_000n;

/** The steps of block production a test can kill the process after (see CRASH_HOOK). */
export const PRODUCTION_STEPS = ['after-proposal', 'after-sc-commit', 'after-commit', 'after-sign', 'after-store'] as const;

/** One step of block production. */
export type ProductionStep = (typeof PRODUCTION_STEPS)[number];

/**
 * Test hook, read only by the kill -9 tests (test/node/crash-production.test.ts):
 * STRATA_TEST_CRASH_AT=<step>@<height> makes the process SIGKILL itself right after that step
 * of that height, so each window between the production writes can be crashed on purpose.
 * `after-sc-commit` (the SC committed, the SS not yet applied) fires inside CommitStore.commit.
 */
const CRASH_HOOK = ((): { step: ProductionStep; height: number } | undefined => {
  const value = process.env.STRATA_TEST_CRASH_AT;
  if (!value) return undefined;
  const [step, height] = value.split('@');
  if (!PRODUCTION_STEPS.includes(step as ProductionStep) || !Number.isSafeInteger(Number(height))) {
    throw new Error(`STRATA_TEST_CRASH_AT must be <${PRODUCTION_STEPS.join('|')}>@<height>, got "${value}"`);
  }
  return { step: step as ProductionStep, height: Number(height) };
})();

function crashPoint(step: ProductionStep, height: number): void {
  if (CRASH_HOOK && CRASH_HOOK.step === step && CRASH_HOOK.height === height) process.kill(process.pid, 'SIGKILL');
}

/** A persisted proposal does not fit the chain it is to extend; the message says what to do. */
export class ProposalMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProposalMismatchError';
  }
}

/** Produces blocks on a timer. */
export class BlockProducer {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;
  #resume: ResumedProposal | undefined;

  constructor(private readonly deps: ProducerDeps) {
    this.#resume = deps.resume;
  }

  /**
   * Produces one block now (serialised with the timer's blocks). A failure halts production
   * for good and is reported to onHalt: the state may already hold a block the store does not,
   * which only a restart reconciles (from the proposal log), so carrying on is never right.
   */
  produce(): Promise<void> {
    const next = this.#running.then(() => (this.#stopped ? undefined : this.#produce()));
    this.#running = next.catch((error: unknown) => {
      this.#stopped = true;
      if (this.#timer) clearTimeout(this.#timer);
      this.deps.logger.error('Consensus failure - height halted', {
        height: this.deps.app.height() + 1,
        error: error instanceof Error ? error.message : String(error),
        remedy:
          'check for upgrades or halts with `stratad status`; fix the cause (a full, read-only or failing data directory), ' +
          'then start the node again: it finishes the interrupted block from the proposal log',
      });
      this.deps.onHalt?.(error instanceof Error ? error : new Error(String(error)));
    });
    return next;
  }

  /**
   * Starts producing one block every `intervalMs`, measured start to start: the time a block
   * takes to build is part of the interval, not added to it. A block that takes longer than
   * the interval is followed by the next one at once.
   */
  start(intervalMs: number): void {
    let due = Date.now() + intervalMs;
    const tick = (): void => {
      if (this.#stopped) return;
      void this.produce()
        .catch(() => undefined)
        .finally(() => {
          if (this.#stopped) return;
          due = Math.max(due + intervalMs, Date.now());
          this.#timer = setTimeout(tick, due - Date.now());
        });
    };
    this.#timer = setTimeout(tick, intervalMs);
  }

  /** Stops the timer and waits for a block in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  async #produce(): Promise<void> {
    const { app, store, mempool, signer, proposer } = this.deps;
    const resumed = this.#resume;
    this.#resume = undefined;
    const alreadyExecuted = resumed?.executed === true;
    const height = alreadyExecuted ? app.height() : app.nextHeight();
    // Once the first block is committed, the genesis app hash its header carries is only in the log.
    const previousAppHash = alreadyExecuted
      ? resumed.proposal.appHash
      : height === app.genesis.initial_height
        ? await app.initChain()
        : app.appHash();
    const last = store.latestHeight();
    const lastBlockHash = last !== undefined ? (store.hashAt(last) ?? ZERO_HASH) : ZERO_HASH;
    const proposal =
      resumed?.proposal.height === height
        ? this.#checkResumed(resumed.proposal, lastBlockHash, previousAppHash)
        : await this.#propose(height, lastBlockHash, previousAppHash);
    const { timeMs, baseFee, gasLimit } = proposal;
    crashPoint('after-proposal', height);
    // Stages the app recorded since the last block (a restart's replay) are not this block's.
    this.deps.stageTimes?.take();
    const result = alreadyExecuted ? this.#executedFirstBlock(proposal) : await app.executeBlock({ height, timeMs, proposer, baseFee, gasLimit }, proposal.txs);
    crashPoint('after-commit', height);
    const executed = result.txs.filter((t): t is ExecutedTx => t.kind === 'executed');
    const header: BlockHeader = {
      chainId: BigInt(app.genesis.evm_chain_id),
      height,
      timeMs,
      proposer,
      lastBlockHash,
      appHash: previousAppHash,
      txRoot: txRoot(executed.map((t) => t.raw)),
      receiptsRoot: result.receiptsRoot,
      gasUsed: result.gasUsed,
      gasLimit,
      baseFee,
      logsBloom: result.logsBloom,
    };
    const signing = performance.now();
    const hash = blockHash(header);
    const signature = await signer.sign(height, hash);
    const storing = performance.now();
    this.deps.stageTimes?.record('sign', (storing - signing) / 1000);
    crashPoint('after-sign', height);
    const block: Block = { header, txs: executed.map((t) => t.raw), signature };
    await store.saveBlock(block, executed.map(storedReceipt), [{ validatorAddress: proposer, timestampMs: timeMs, signature }]);
    this.deps.stageTimes?.record('block_store', (performance.now() - storing) / 1000);
    crashPoint('after-store', height);
    removeProposal(this.deps.proposalPath);
    mempool.update(height, result.txs.map((t) => t.raw));
    for (const skipped of result.txs) {
      if (skipped.kind === 'skipped') this.deps.logger.debug('transaction left out of the block', { height, reason: skipped.reason.message });
    }
    if (this.deps.stageTimes) this.deps.logger.debug('block stage times (ms)', { height, txs: executed.length, ...this.deps.stageTimes.take() });
    this.deps.logger.info('committed block', {
      height,
      txs: executed.length,
      appHash: Buffer.from(result.appHash).toString('hex'),
    });
    this.deps.onBlock({ ...block, hash }, result);
  }

  /** A new proposal from the mempool, synced to the proposal log before anything executes it. */
  async #propose(height: number, lastBlockHash: Uint8Array, appHash: Uint8Array): Promise<Proposal> {
    const { app, mempool, proposer } = this.deps;
    const gasLimit = BigInt(app.genesis.params.block_gas_limit);
    // Block 1 commits the genesis state alone, so height 0 (genesis) stays a readable state.
    const reaped = height === app.genesis.initial_height ? [] : mempool.reap(gasLimit, this.deps.maxTxsPerBlock ?? Math.max(10_000, Number(gasLimit / TRANSFER_GAS)));
    const proposal: Proposal = {
      height,
      timeMs: Date.now(),
      proposer,
      baseFee: BigInt(app.genesis.params.min_base_fee),
      gasLimit,
      lastBlockHash,
      appHash,
      txs: reaped.map((t) => t.raw),
    };
    await writeProposal(this.deps.proposalPath, proposal);
    return proposal;
  }

  /**
   * The proposal persisted before a restart. It must extend the chain it was made on: a
   * different parent or app hash means the stores moved under it, and producing anything at
   * that height could sign a second block.
   */
  #checkResumed(proposal: Proposal, lastBlockHash: Uint8Array, appHash: Uint8Array): Proposal {
    const { height } = proposal;
    const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
    if (!same(proposal.lastBlockHash, lastBlockHash) || !same(proposal.appHash, appHash) || !same(proposal.proposer, this.deps.proposer)) {
      throw new ProposalMismatchError(
        `the persisted proposal for block ${height} does not extend the stored chain (parent, app hash or proposer differ); ` +
          `compare the state with \`stratadb dump-iavl\` and the block store before starting again`,
      );
    }
    this.deps.logger.info('re-proposing the block persisted before a restart', { height, txs: proposal.txs.length, timeMs: proposal.timeMs });
    return proposal;
  }

  /**
   * The outcome of the chain's first block, which the state already holds: that block commits
   * the genesis state and no transactions, so its results are those of an empty block.
   */
  #executedFirstBlock(proposal: Proposal): BlockResult {
    const { app } = this.deps;
    if (proposal.height !== app.genesis.initial_height || proposal.txs.length > 0 || app.height() !== proposal.height) {
      throw new ProposalMismatchError(
        `the persisted proposal for block ${proposal.height} is not the chain's first, empty block the state holds, and the state ` +
          'cannot be rolled back below the first block; restore the node from a state-sync snapshot',
      );
    }
    return {
      height: proposal.height,
      version: proposal.height,
      appHash: app.appHash(),
      txs: [],
      gasUsed: 0n,
      logsBloom: new Uint8Array(256),
      receiptsRoot: keccak256(new Uint8Array()),
    };
  }
}
