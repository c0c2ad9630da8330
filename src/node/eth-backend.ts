/**
 * The EVM JSON-RPC backend of a running node: answers the eth_ methods through the provider
 * (block names, state at a height, blocks, transactions, receipts, logs), runs calls on the
 * App, hands transactions to the mempool, and fans new blocks out to subscribers.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { decode as rlpDecode } from '@ethereumjs/rlp';
import { Address, bytesToBigInt, createContractAddress } from '@ethereumjs/util';
import { LRUCache } from 'lru-cache';
import type { App, CallBlock } from '../app/index.js';
import { encodeBlock, encodeHeader } from '../chain/block.js';
import type { IndexedLog, StoredReceipt } from '../chain/block-store.js';
import { AlreadyKnownError, MempoolError, MempoolFullError, type Mempool } from '../chain/mempool.js';
import { CallFailedError, CallRevertedError } from '../evm/call.js';
import { TxRejectedError, type TxRejectionCode } from '../evm/errors.js';
import { BlockNotFoundError, type BlockId, type ChainProvider } from '../provider/index.js';
import {
  TransactionRejectedError,
  type AccessListOutcome,
  type BlockFeeData,
  type CallOutcome,
  type CallRequest,
  type ChainHeights,
  type EstimateOutcome,
  type EthBackend,
  type EthBlock,
  type EthBlockHeader,
  type EthLog,
  type EthReceipt,
  type EthTransaction,
  type LocatedTransaction,
  type LogQuery,
  type NewBlockEvent,
  type RejectReason,
  type SimulateRequest,
  type SimulatedBlockOutcome,
  type StateOverrides,
  type SyncStatus,
  type TxPoolContent,
  type TxPoolStatus,
  type Unsubscribe,
} from '../rpc/eth/index.js';
import { bytesHex } from '../util/hex.js';
import { appCallRequest, appStateOverrides } from './call-request.js';
import { FeeDefaultsError, withFeeDefaults, type FeeBasis } from './fee-defaults.js';
import { simulatePayload, simulatedBlockOutcome } from './simulate-request.js';
import { AdmissionBatch } from './admission-batch.js';
import { blobGasOfRaw, decodeChainTx, importedBlockFields, typedTxFields } from './eth-objects.js';
import { ImportedChainConfig } from '../app/imported-chain/chain-config.js';
import { blobGasPriceOf } from '../app/imported-chain/header-facts.js';
import type { ChainBlock } from '../chain/imported-block.js';
import { withFields } from '../util/objects.js';

const REJECT_REASONS: Partial<Record<TxRejectionCode, RejectReason>> = {
  invalid_encoding: 'decode',
  unsupported_type: 'decode',
  invalid_signature: 'invalid-sender',
  wrong_chain_id: 'wrong-chain-id',
  nonce_too_low: 'nonce-too-low',
  nonce_too_high: 'nonce-too-high',
  insufficient_funds: 'insufficient-funds',
  intrinsic_gas_too_low: 'intrinsic-gas',
  fee_below_base_fee: 'fee-below-base-fee',
  tip_above_fee_cap: 'underpriced',
  block_gas_limit_reached: 'gas-limit',
};

function bigintOf(value: bigint | undefined): bigint {
  return value ?? 0n;
}

/** A block time in ms as the seconds Ethereum timestamps count. */
function seconds(timeMs: number): bigint {
  return BigInt(Math.floor(timeMs / 1000));
}

/**
 * The nonce of a raw signed transaction, read from its RLP without recovering the sender: the
 * first field of a legacy transaction, the second (after the chain id) of a typed one.
 */
function rawTxNonce(raw: Uint8Array): bigint {
  const typed = raw[0]! < 0x80;
  const fields = rlpDecode(typed ? raw.subarray(1) : raw) as Uint8Array[];
  return bytesToBigInt(fields[typed ? 1 : 0]!);
}

/**
 * The receipt's contract address: geth names the address a creation would have had even when
 * it failed, while the store keeps one only for a successful creation.
 */
function contractAddressOf(receipt: StoredReceipt, rawTx: () => Uint8Array | undefined): Uint8Array | null {
  if (receipt.contractAddress !== null || receipt.to !== null) return receipt.contractAddress;
  const raw = rawTx();
  return raw === undefined ? null : createContractAddress(new Address(receipt.from), rawTxNonce(raw)).bytes;
}

/** The blob fields of a blob transaction's receipt: its blob gas and its block's blob base fee. */
interface BlobReceiptFacts {
  blobGasUsed: bigint;
  blobGasPrice: bigint;
}

/**
 * The eth_ view of a stored receipt; `rawTx` gives the transaction when a failed creation needs
 * its nonce or a blob transaction its blob count, `blobGasPrice` its block's blob base fee.
 */
function ethReceipt(r: StoredReceipt, rawTx: () => Uint8Array | undefined, blobGasPrice: () => bigint | undefined = () => undefined): EthReceipt {
  let blob: Partial<BlobReceiptFacts> = {};
  if (r.txType === 3) {
    const raw = rawTx();
    const price = blobGasPrice();
    if (raw !== undefined && price !== undefined) blob = { blobGasUsed: blobGasOfRaw(raw), blobGasPrice: price };
  }
  return withFields(blob, {
    transactionHash: r.txHash,
    transactionIndex: r.txIndex,
    blockHash: r.blockHash,
    blockNumber: r.blockHeight,
    blockTimestamp: seconds(r.blockTimeMs),
    from: r.from,
    to: r.to,
    cumulativeGasUsed: r.cumulativeGasUsed,
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: contractAddressOf(r, rawTx),
    logs: r.logs.map(ethLog),
    logsBloom: r.logsBloom,
    status: r.status,
    type: r.txType,
  });
}

/** The eth_ view of a decoded transaction. */
function ethTransaction(tx: TypedTransaction, hash: Uint8Array, from: Uint8Array): EthTransaction {
  const t = tx as TypedTransaction & {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    accessList?: Array<[Uint8Array, Uint8Array[]]>;
    chainId?: bigint;
  };
  const base = {
    hash,
    type: tx.type,
    nonce: tx.nonce,
    from,
    to: tx.to ? tx.to.bytes : null,
    value: tx.value,
    gas: tx.gasLimit,
    input: tx.data,
    v: bigintOf(tx.v),
    r: bigintOf(tx.r),
    s: bigintOf(tx.s),
  };
  const accessList = t.accessList?.map(([address, storageKeys]) => ({ address, storageKeys }));
  const chainId = tx.type === 0 ? (tx.supports(155) ? tx.common.chainId() : undefined) : t.chainId;
  return {
    ...base,
    ...(t.gasPrice !== undefined ? { gasPrice: t.gasPrice } : {}),
    ...(t.maxFeePerGas !== undefined ? { maxFeePerGas: t.maxFeePerGas, maxPriorityFeePerGas: t.maxPriorityFeePerGas } : {}),
    ...(accessList !== undefined ? { accessList } : {}),
    ...(chainId !== undefined ? { chainId } : {}),
    ...typedTxFields(tx),
  };
}

function ethLog(log: IndexedLog): EthLog {
  return {
    blockTimestamp: seconds(log.blockTimeMs),
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: log.blockHeight,
    blockHash: log.blockHash,
    transactionHash: log.txHash,
    transactionIndex: log.txIndex,
    logIndex: log.logIndex,
  };
}

/** EthBackend over one node's provider, app and mempool. */
export class NodeEthBackend implements EthBackend {
  readonly #listeners = new Set<(event: NewBlockEvent) => void>();
  /** Header fields calls run with, for the heights called at most recently (decoding a block is not free). */
  readonly #callBlocks = new LRUCache<number, CallBlock>({ max: 64 });
  /**
   * The eth_ transactions of recently read blocks, by block hash: each needs its sender
   * recovered (an ECDSA recovery per transaction), and clients read the same recent blocks
   * again and again. A block's content never changes under its hash.
   */
  readonly #blockTxs = new LRUCache<string, EthTransaction[]>({ max: 16 });
  /**
   * The eth_ view of logs the block store hands out again (it remembers recently queried
   * blocks' logs): built once per stored log, and gone with it.
   */
  readonly #ethLogs = new WeakMap<IndexedLog, EthLog>();
  /** The imported chain's rules once read (null: this node serves a chain of its own). */
  #importedConfig: ImportedChainConfig | null | undefined;
  /** The transactions of one JSON-RPC batch, their senders recovered together. */
  readonly #admission = new AdmissionBatch((raws) => this.app.prepareTxs(raws));

  constructor(
    private readonly app: App,
    private readonly chain: ChainProvider,
    private readonly mempool: Mempool,
  ) {}

  chainId(): bigint {
    return BigInt(this.app.genesis.evm_chain_id);
  }

  heights(): ChainHeights {
    return this.chain.heights();
  }

  #decode(raw: Uint8Array): { tx: TypedTransaction; hash: Uint8Array; from: Uint8Array } {
    return decodeChainTx(raw, this.app.common);
  }

  /** The rules of the imported chain this node serves, read once; undefined for a chain of its own. */
  #importedChain(): ImportedChainConfig | undefined {
    if (this.#importedConfig === undefined) {
      const genesis = this.chain.blocks.importedChainGenesis();
      this.#importedConfig = genesis === undefined ? null : ImportedChainConfig.parse(genesis);
    }
    return this.#importedConfig ?? undefined;
  }

  /** The blob base fee of the imported block at `height` (undefined before Cancun or on this chain's blocks). */
  #blobGasPrice(height: number): bigint | undefined {
    const config = this.#importedChain();
    const header = config === undefined ? undefined : this.chain.blocks.byHeight(height)?.imported?.header;
    return config === undefined || header === undefined || header.length === 0 ? undefined : blobGasPriceOf(config, header);
  }

  #header(block: ChainBlock): EthBlockHeader & Pick<EthBlock, 'uncles' | 'withdrawals'> {
    const h = block.header;
    const own = {
      number: h.height,
      hash: block.hash,
      parentHash: h.lastBlockHash,
      timestamp: BigInt(Math.floor(h.timeMs / 1000)),
      miner: h.proposer,
      stateRoot: h.appHash,
      transactionsRoot: h.txRoot,
      receiptsRoot: h.receiptsRoot,
      logsBloom: h.logsBloom,
      gasLimit: h.gasLimit,
      gasUsed: h.gasUsed,
      baseFeePerGas: h.baseFee,
      extraData: new Uint8Array(),
      size: BigInt(block.txs.reduce((n, tx) => n + tx.length, 0) + 600),
    };
    return block.imported === undefined ? own : { ...own, ...importedBlockFields(block, () => this.#importedChain()) };
  }

  /** The block `id` names, or undefined when there is none. */
  #stored(id: BlockId): ChainBlock | undefined {
    try {
      return this.chain.block(id);
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined;
      throw error;
    }
  }

  heightOf(id: BlockId): number | null {
    return this.#stored(id)?.header.height ?? null;
  }

  block(id: BlockId): EthBlock | null {
    const block = this.#stored(id);
    if (!block) return null;
    const key = Buffer.from(block.hash).toString('hex');
    let transactions = this.#blockTxs.get(key);
    if (transactions === undefined) {
      transactions = block.txs.map((raw) => {
        const d = this.#decode(raw);
        return ethTransaction(d.tx, d.hash, d.from);
      });
      this.#blockTxs.set(key, transactions);
    }
    return { ...this.#header(block), transactions };
  }

  /** Recovers the sender of that one transaction only, unless the whole block is already decoded. */
  transactionInBlock(id: BlockId, index: number): LocatedTransaction | null {
    const block = this.#stored(id);
    const raw = block?.txs[index];
    if (block === undefined || raw === undefined) return null;
    let tx = this.#blockTxs.get(Buffer.from(block.hash).toString('hex'))?.[index];
    if (tx === undefined) {
      const d = this.#decode(raw);
      tx = ethTransaction(d.tx, d.hash, d.from);
    }
    const position = {
      blockHash: block.hash,
      blockNumber: block.header.height,
      index,
      baseFeePerGas: block.header.baseFee,
      blockTimestamp: seconds(block.header.timeMs),
    };
    return { tx, position };
  }

  /** Counts the stored raw txs: no decoding, no sender recovery. */
  blockTransactionCount(id: BlockId): number | null {
    return this.#stored(id)?.txs.length ?? null;
  }

  transactionByHash(hash: Uint8Array): LocatedTransaction | null {
    const located = this.chain.blocks.txInBlock(hash);
    if (located) {
      const { block, index } = located;
      const d = this.#decode(block.txs[index]!);
      return {
        tx: ethTransaction(d.tx, d.hash, d.from),
        position: {
          blockHash: block.hash,
          blockNumber: block.header.height,
          index,
          baseFeePerGas: block.header.baseFee,
          blockTimestamp: seconds(block.header.timeMs),
        },
      };
    }
    const pending = this.mempool.get(hash);
    if (!pending) return null;
    const d = this.#decode(pending.raw);
    return { tx: ethTransaction(d.tx, d.hash, d.from), position: null };
  }

  receiptByHash(hash: Uint8Array): EthReceipt | null {
    const r: StoredReceipt | undefined = this.chain.blocks.receipt(hash);
    if (!r) return null;
    return ethReceipt(r, () => this.chain.blocks.txByHash(hash)?.rawTx, () => this.#blobGasPrice(r.blockHeight));
  }

  blockReceipts(id: BlockId): EthReceipt[] | null {
    const block = this.#stored(id);
    if (!block) return null;
    const receipts = this.chain.blocks.receiptsOfBlock(block.header.height);
    if (!receipts) return null;
    let blobGasPrice: bigint | undefined | null = null;
    const price = (): bigint | undefined => (blobGasPrice === null ? (blobGasPrice = this.#blobGasPrice(block.header.height)) : blobGasPrice);
    return receipts.map((r) => ethReceipt(r, () => block.txs[r.txIndex], price));
  }

  /**
   * This chain's header encoding: RLP of the list [chainId, height, timeMs, proposer,
   * lastBlockHash, appHash, txRoot, receiptsRoot, gasUsed, gasLimit, baseFee, logsBloom]
   * (integers minimal big-endian), whose keccak256 is the block hash, as geth's raw header hashes
   * to its block hash. It is not Ethereum's 15+-field header: this chain's header has other fields.
   */
  rawHeader(id: BlockId): Uint8Array | null {
    const block = this.#stored(id);
    return block ? encodeHeader(block.header) : null;
  }

  /** This chain's block encoding: RLP of [header fields as in rawHeader, raw transactions, proposer signature]. */
  rawBlock(id: BlockId): Uint8Array | null {
    const block = this.#stored(id);
    return block ? encodeBlock(block) : null;
  }

  rawTransaction(hash: Uint8Array): Uint8Array | null {
    return this.chain.blocks.txByHash(hash)?.rawTx ?? this.mempool.get(hash)?.raw ?? null;
  }

  getLogs(query: LogQuery): EthLog[] {
    return this.chain.blocks.logs({ fromBlock: query.fromBlock, toBlock: query.toBlock, addresses: query.addresses, topics: query.topics }).map((log) => {
      let view = this.#ethLogs.get(log);
      if (view === undefined) {
        view = ethLog(log);
        this.#ethLogs.set(log, view);
      }
      return view;
    });
  }

  getBalance(address: Uint8Array, at: BlockId): bigint {
    return this.chain.state.balance(address, this.chain.heightOf(at));
  }

  getNonce(address: Uint8Array, at: BlockId): bigint {
    return this.chain.state.nonce(address, this.chain.heightOf(at));
  }

  getPendingNonce(address: Uint8Array): bigint {
    const sender = bytesHex(address);
    const committed = this.chain.state.nonce(address, 'latest');
    const pending = this.mempool.pendingNonce(sender);
    return pending > committed ? pending : committed;
  }

  getCode(address: Uint8Array, at: BlockId): Uint8Array {
    return this.chain.state.code(address, this.chain.heightOf(at));
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array, at: BlockId): Uint8Array {
    return this.chain.state.storage(address, slot, this.chain.heightOf(at));
  }

  /** The header fields of block `height` an eth_call there runs with (undefined for genesis). */
  #callBlock(height: number): CallBlock | undefined {
    const known = this.#callBlocks.get(height);
    if (known !== undefined) return known;
    const stored = height === 0 && this.#importedChain() === undefined ? undefined : this.chain.blocks.byHeight(height);
    if (stored === undefined) return undefined;
    const { header } = stored;
    // An imported block's fees are its own header's (0 before London), not this chain's.
    const block: CallBlock =
      stored.imported === undefined
        ? { timeMs: header.timeMs, proposer: header.proposer }
        : { timeMs: header.timeMs, proposer: header.proposer, baseFee: header.baseFee, gasLimit: header.gasLimit };
    this.#callBlocks.set(height, block);
    return block;
  }

  async call(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): Promise<CallOutcome> {
    const height = this.chain.heightOf(at);
    const state = this.chain.state.at(height);
    try {
      const result = await this.app.call(appCallRequest(request), state, appStateOverrides(overrides), this.#callBlock(height));
      return { status: 'success', returnData: result.returnData, gasUsed: result.gasUsed };
    } catch (error) {
      if (error instanceof CallRevertedError) return { status: 'reverted', returnData: error.data, gasUsed: 0n };
      if (error instanceof CallFailedError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  async estimateGas(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): Promise<EstimateOutcome> {
    const state = this.chain.stateAt(at);
    try {
      const gas = await this.app.estimateGas(appCallRequest(request), state, appStateOverrides(overrides), this.#callBlock(state.height));
      return { status: 'success', gas };
    } catch (error) {
      if (error instanceof CallRevertedError) return { status: 'reverted', returnData: error.data };
      if (error instanceof CallFailedError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  async createAccessList(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): Promise<AccessListOutcome> {
    const height = this.chain.heightOf(at);
    const state = this.chain.state.at(height);
    try {
      const priced = withFeeDefaults(request, this.#feeBasis(height));
      const result = await this.app.createAccessList(appCallRequest(priced), state, appStateOverrides(overrides), this.#callBlock(height));
      return { status: 'success', accessList: result.accessList, gasUsed: result.gasUsed, ...(result.error === undefined ? {} : { error: result.error }) };
    } catch (error) {
      if (error instanceof CallFailedError || error instanceof FeeDefaultsError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  /**
   * The fee facts of block `height` for geth's fee defaults: its base fee and the suggested
   * tip. An imported block without a base fee is pre-London; this chain's blocks always have one.
   */
  #feeBasis(height: number): FeeBasis {
    const stored = this.chain.blocks.byHeight(height);
    const imported = stored?.imported !== undefined || this.#importedChain() !== undefined;
    const baseFee = this.#callBlock(height)?.baseFee ?? stored?.header.baseFee ?? BigInt(this.app.genesis.params.min_base_fee);
    return { baseFee, london: !imported || baseFee > 0n, tip: this.maxPriorityFeePerGas() };
  }

  async simulate(request: SimulateRequest, at: BlockId): Promise<SimulatedBlockOutcome[]> {
    const height = this.chain.heightOf(at);
    const state = this.chain.state.at(height);
    const header = this.block({ kind: 'number', number: height });
    const base = {
      number: BigInt(height),
      hash: header?.hash ?? new Uint8Array(32),
      timestamp: header?.timestamp ?? 0n,
      coinbase: header?.miner ?? new Uint8Array(20),
    };
    const blocks = await this.app.simulate(simulatePayload(request), state, base, this.#callBlock(height));
    return blocks.map((block) => simulatedBlockOutcome(block, this.chainId()));
  }

  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    try {
      const admitted = await this.#admission.admit(raw, () => this.mempool.add(raw));
      return admitted.hash;
    } catch (error) {
      if (error instanceof MempoolFullError) throw new TransactionRejectedError('mempool-full', error.message);
      if (error instanceof AlreadyKnownError) throw new TransactionRejectedError('already-known', error.message);
      if (error instanceof MempoolError) throw new TransactionRejectedError('other', error.message);
      if (error instanceof TxRejectedError) throw new TransactionRejectedError(REJECT_REASONS[error.code] ?? 'other', error.message);
      throw error;
    }
  }

  gasPrice(): bigint {
    return BigInt(this.app.genesis.params.min_base_fee) + this.maxPriorityFeePerGas();
  }

  maxPriorityFeePerGas(): bigint {
    return 1_000_000_000n;
  }

  feeData(height: number): BlockFeeData | null {
    const block = this.chain.blocks.byHeight(height);
    if (!block) return null;
    const baseFee = block.header.baseFee;
    const transactions = block.txs.map((raw) => {
      const d = this.#decode(raw);
      const receipt = this.chain.blocks.receipt(d.hash);
      const t = d.tx as TypedTransaction & { maxPriorityFeePerGas?: bigint; maxFeePerGas?: bigint; gasPrice?: bigint };
      const cap = t.maxFeePerGas ?? t.gasPrice ?? baseFee;
      const tip = t.maxPriorityFeePerGas ?? cap - baseFee;
      const priorityFeePerGas = cap - baseFee < tip ? cap - baseFee : tip;
      return { gasUsed: receipt?.gasUsed ?? 0n, priorityFeePerGas };
    });
    return { baseFeePerGas: baseFee, nextBaseFeePerGas: baseFee, gasUsed: block.header.gasUsed, gasLimit: block.header.gasLimit, transactions };
  }

  /**
   * This chain's blocks carry no blob transactions, so their excess blob gas stays 0 and the
   * blob base fee is EIP-4844's minimum, 1 wei.
   */
  blobBaseFee(): bigint {
    return 1n;
  }

  /** No peer layer feeds this yet: a single node has no peers. */
  peerCount(): number {
    return 0;
  }

  txPool(): TxPoolContent {
    const pool = this.mempool.content();
    const view = (tx: { raw: Uint8Array }): EthTransaction => {
      const d = this.#decode(tx.raw);
      return ethTransaction(d.tx, d.hash, d.from);
    };
    return { pending: pool.pending.map(view), queued: pool.queued.map(view) };
  }

  txPoolStatus(): TxPoolStatus {
    const stats = this.mempool.stats();
    return { pending: stats.executable, queued: stats.future };
  }

  syncing(): SyncStatus {
    return false;
  }

  onNewBlock(listener: (event: NewBlockEvent) => void): Unsubscribe {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onPendingTransaction(listener: (hash: Uint8Array) => void): Unsubscribe {
    return this.mempool.onAdmitted((tx) => listener(tx.hash));
  }

  /** Tells subscribers about a stored block. */
  publishBlock(height: number): void {
    if (this.#listeners.size === 0) return;
    const block = this.chain.blocks.byHeight(height);
    if (!block) return;
    const event: NewBlockEvent = { header: this.#header(block), logs: this.chain.blocks.logsOfBlock(height).map(ethLog) };
    for (const listener of this.#listeners) listener(event);
  }
}
