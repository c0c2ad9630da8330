/**
 * Blocks, transactions, receipts and logs as the block store keeps them, with block 0 — the
 * genesis state, which no block of this chain carries — served as a block of its own.
 */
import type { Genesis } from '../app/index.js';
import { EMPTY_BLOOM, ZERO_HASH, txRoot } from '../chain/block.js';
import type { BlockStore, IndexedLog, LogFilter, StoredReceipt, TxLocation } from '../chain/block-store.js';
import type { ChainBlock } from '../chain/imported-block.js';

const EMPTY_ROOT = txRoot([]);
const NO_SIGNATURE = new Uint8Array(64);

/** Read access to the chain's blocks. */
export class BlockReader {
  constructor(
    private readonly store: BlockStore,
    private readonly genesis: Genesis,
    /** The app hash of the genesis state, for block 0 before block 1 carries it. */
    private readonly genesisAppHash: () => Uint8Array,
  ) {}

  /** Newest stored height (0 before the first block). */
  latestHeight(): number {
    return this.store.latestHeight() ?? 0;
  }

  /** The block at `height`: block 0 is the genesis block. */
  byHeight(height: number): ChainBlock | undefined {
    if (height === 0) return this.store.blockByHeight(0) ?? this.#genesisBlock();
    return this.store.blockByHeight(height);
  }

  /**
   * The block with `hash`. The zero hash names the genesis block of this chain, which no record
   * holds; an imported chain stores its genesis under its Ethereum hash, and there the zero
   * hash names nothing.
   */
  byHash(hash: Uint8Array): ChainBlock | undefined {
    if (this.#zeroNamesGenesis(hash)) return this.byHeight(0);
    return this.store.blockByHash(hash);
  }

  /** The height of the block with `hash` (the zero hash as in byHash). */
  heightOfHash(hash: Uint8Array): number | undefined {
    if (this.#zeroNamesGenesis(hash)) return 0;
    return this.store.heightOfHash(hash);
  }

  #zeroNamesGenesis(hash: Uint8Array): boolean {
    return ZERO_HASH.equals(hash) && this.store.hashAt(0) === undefined;
  }

  /** The hash of the block at `height` (BLOCKHASH, parent hashes). */
  hashAt(height: number): Uint8Array | undefined {
    return this.store.hashAt(height);
  }

  /** The number of transactions of the block at `height`, without decoding them. */
  txCount(height: number): number | undefined {
    if (height === 0) return 0;
    return this.store.blockByHeight(height)?.txs.length;
  }

  /** Where a mined transaction sits. */
  txByHash(hash: Uint8Array): TxLocation | undefined {
    return this.store.txByHash(hash);
  }

  /** The block that includes a mined transaction, and the transaction's index in it (one block read). */
  txInBlock(hash: Uint8Array): { block: ChainBlock; index: number } | undefined {
    return this.store.txInBlock(hash);
  }

  /** The receipt of a mined transaction. */
  receipt(hash: Uint8Array): StoredReceipt | undefined {
    return this.store.receipt(hash);
  }

  /** The receipts of the block at `height`, in order (undefined for an unknown height). */
  receiptsOfBlock(height: number): StoredReceipt[] | undefined {
    return this.store.receiptsOfBlock(height);
  }

  /** Logs matching `filter`, in chain order. */
  logs(filter: LogFilter): IndexedLog[] {
    return this.store.logs(filter);
  }

  /** Every log of the block at `height`. */
  logsOfBlock(height: number): IndexedLog[] {
    return this.store.logsOfBlock(height);
  }

  /** The genesis file an imported chain was created from, if any. */
  importedChainGenesis(): string | undefined {
    return this.store.importedChainGenesis();
  }

  /**
   * Block 0 of this chain: the genesis state with no transactions, under the zero hash block
   * 1 names as its parent, carrying the genesis app hash.
   */
  #genesisBlock(): ChainBlock {
    const first = this.store.blockByHeight(this.genesis.initial_height);
    const params = this.genesis.params;
    return {
      header: {
        chainId: BigInt(this.genesis.evm_chain_id),
        height: 0,
        timeMs: Math.floor(Date.parse(this.genesis.genesis_time) / 1000) * 1000,
        proposer: new Uint8Array(20),
        lastBlockHash: ZERO_HASH,
        appHash: first?.header.appHash ?? this.genesisAppHash(),
        txRoot: EMPTY_ROOT,
        receiptsRoot: EMPTY_ROOT,
        gasUsed: 0n,
        gasLimit: BigInt(params.block_gas_limit),
        baseFee: BigInt(params.initial_base_fee),
        logsBloom: EMPTY_BLOOM,
      },
      txs: [],
      signature: NO_SIGNATURE,
      hash: ZERO_HASH,
    };
  }
}
