/**
 * The block producer of a single validator: every `timeout_commit` it reaps the mempool,
 * executes and commits the block (App: SC → app hash, SS apply), signs the header (refusing a
 * height it signed before) and stores the block with its receipts and commit. The header of
 * block h carries the app hash after block h − 1, as in CometBFT.
 */
import type { App, BlockResult } from '../app/index.js';
import { ZERO_HASH, blockHash, txRoot, type Block, type BlockHeader } from '../chain/block.js';
import type { BlockStore, Receipt } from '../chain/block-store.js';
import type { BlockSigner } from '../chain/keys.js';
import type { Mempool } from '../chain/mempool.js';
import type { ExecutedTx } from '../evm/executor.js';
import type { Logger } from '../log/logger.js';

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
  /** Most transactions per block. */
  maxTxsPerBlock?: number;
}

/** Converts the executor's receipt of `tx` to the block store's. */
function storedReceipt(tx: ExecutedTx): Receipt {
  return {
    status: tx.receipt.status,
    txType: tx.receipt.type,
    from: tx.from,
    to: tx.to ?? null,
    contractAddress: tx.receipt.contractAddress ?? null,
    gasUsed: tx.receipt.gasUsed,
    cumulativeGasUsed: tx.receipt.cumulativeGasUsed,
    effectiveGasPrice: tx.receipt.effectiveGasPrice,
    logs: tx.receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
  };
}

/** Produces blocks on a timer. */
export class BlockProducer {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(private readonly deps: ProducerDeps) {}

  /**
   * Produces one block now (serialised with the timer's blocks). A failure halts production:
   * the state may already hold the block the store does not, and the operator decides (a
   * restart re-checks both; `stratad rollback` brings the state back).
   */
  produce(): Promise<void> {
    const next = this.#running.then(() => (this.#stopped ? undefined : this.#produce()));
    this.#running = next.catch((error: unknown) => {
      this.#stopped = true;
      if (this.#timer) clearTimeout(this.#timer);
      this.deps.logger.error('block production halted', {
        error: error instanceof Error ? error.message : String(error),
        remedy: 'restart the node; if it reports the state ahead of the block store, run `stratad rollback`',
      });
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
    const height = app.nextHeight();
    const previousAppHash = height === app.genesis.initial_height ? await app.initChain() : app.appHash();
    const last = store.latestHeight();
    const lastBlockHash = last !== undefined ? (store.hashAt(last) ?? ZERO_HASH) : ZERO_HASH;
    const gasLimit = BigInt(app.genesis.params.block_gas_limit);
    const baseFee = BigInt(app.genesis.params.min_base_fee);
    // Block 1 commits the genesis state alone, so height 0 (genesis) stays a readable state.
    const reaped = height === app.genesis.initial_height ? [] : mempool.reap(gasLimit, this.deps.maxTxsPerBlock ?? 10_000);
    const timeMs = Date.now();
    const result = await app.executeBlock({ height, timeMs, proposer, baseFee, gasLimit }, reaped.map((t) => t.raw));
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
    const hash = blockHash(header);
    const signature = signer.sign(height, hash);
    const block: Block = { header, txs: executed.map((t) => t.raw), signature };
    await store.saveBlock(block, executed.map(storedReceipt), [{ validatorAddress: proposer, timestampMs: timeMs, signature }]);
    mempool.update(height, result.txs.map((t) => t.raw));
    for (const skipped of result.txs) {
      if (skipped.kind === 'skipped') this.deps.logger.debug('transaction left out of the block', { height, reason: skipped.reason.message });
    }
    this.deps.logger.info('committed block', {
      height,
      txs: executed.length,
      appHash: Buffer.from(result.appHash).toString('hex'),
    });
    this.deps.onBlock({ ...block, hash }, result);
  }
}
