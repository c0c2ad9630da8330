/**
 * What the EVM JSON-RPC methods need from the node, as plain typed data: quantities are
 * bigint, heights number, bytes Uint8Array. The node implements this over the provider layer,
 * which resolves block names; the methods only parse and format. A block name that names no
 * block, or a state that is not retained, is the provider's typed error.
 */
import type { BlockOverrides } from '../../evm/block-context.js';
import type { BlockId, ChainHeights } from '../../provider/index.js';

/** A value or a Promise of it: backends answer synchronously when they can. */
export type MaybePromise<T> = T | Promise<T>;

export type { BlockId, ChainHeights };

/** An access-list entry. */
export interface AccessListEntry {
  readonly address: Uint8Array;
  readonly storageKeys: readonly Uint8Array[];
}

/** One authorization of an EIP-7702 transaction: the signer lets `address`'s code run as its own. */
export interface EthAuthorization {
  readonly chainId: bigint;
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly yParity: bigint;
  readonly r: bigint;
  readonly s: bigint;
}

/** One withdrawal of a block (EIP-4895). */
export interface EthWithdrawal {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  /** In gwei. */
  readonly amount: bigint;
}

/** A signed transaction, decoded. */
export interface EthTransaction {
  readonly hash: Uint8Array;
  /** 0 legacy, 1 access list (EIP-2930), 2 dynamic fee (EIP-1559), 3 blob (EIP-4844), 4 set code (EIP-7702). */
  readonly type: number;
  readonly nonce: bigint;
  readonly from: Uint8Array;
  /** null for contract creation. */
  readonly to: Uint8Array | null;
  readonly value: bigint;
  /** The gas limit. */
  readonly gas: bigint;
  /** Types 0 and 1. */
  readonly gasPrice?: bigint;
  /** Types 2, 3 and 4. */
  readonly maxFeePerGas?: bigint;
  /** Types 2, 3 and 4. */
  readonly maxPriorityFeePerGas?: bigint;
  /** Type 3. */
  readonly maxFeePerBlobGas?: bigint;
  /** Type 3. */
  readonly blobVersionedHashes?: readonly Uint8Array[];
  /** Type 4. */
  readonly authorizationList?: readonly EthAuthorization[];
  readonly input: Uint8Array;
  /** Absent for a legacy transaction without EIP-155 replay protection. */
  readonly chainId?: bigint;
  /** Types 1 to 4. */
  readonly accessList?: readonly AccessListEntry[];
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
}

/** Where a mined transaction sits. */
export interface TxPosition {
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  readonly index: number;
  /** Base fee of that block, to report a dynamic-fee transaction's effective gas price. */
  readonly baseFeePerGas: bigint;
  /** That block's timestamp, seconds. */
  readonly blockTimestamp: bigint;
}

/** A transaction found by hash; `position` is null while it waits in the mempool. */
export interface LocatedTransaction {
  readonly tx: EthTransaction;
  readonly position: TxPosition | null;
}

/** A block header in Ethereum terms. */
export interface EthBlockHeader {
  readonly number: number;
  readonly hash: Uint8Array;
  readonly parentHash: Uint8Array;
  /** Seconds since the epoch. */
  readonly timestamp: bigint;
  /** The proposer's 20-byte address. */
  readonly miner: Uint8Array;
  /** The app hash the block header carries. */
  readonly stateRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  /** 256 bytes. */
  readonly logsBloom: Uint8Array;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly baseFeePerGas: bigint;
  /** True for a block that predates EIP-1559 (an imported one): it has no base fee to show. */
  readonly noBaseFee?: boolean;
  readonly extraData: Uint8Array;
  /** Encoded size of the block in bytes. */
  readonly size: bigint;
  /** The proof-of-work fields of the block's own header (an imported block); 0 and zeros otherwise. */
  readonly difficulty?: bigint;
  readonly mixHash?: Uint8Array;
  /** 8 bytes. */
  readonly nonce?: Uint8Array;
  readonly sha3Uncles?: Uint8Array;
  /** The header fields later forks added, where the block's own header has them. */
  readonly withdrawalsRoot?: Uint8Array;
  readonly blobGasUsed?: bigint;
  readonly excessBlobGas?: bigint;
  readonly parentBeaconBlockRoot?: Uint8Array;
  readonly requestsHash?: Uint8Array;
}

/** A block with its transactions in order. */
export interface EthBlock extends EthBlockHeader {
  readonly transactions: readonly EthTransaction[];
  /** Hashes of the uncle headers (an imported proof-of-work block may have some). */
  readonly uncles?: readonly Uint8Array[];
  /** From Shanghai on (an imported block). */
  readonly withdrawals?: readonly EthWithdrawal[];
}

/** An EVM log with its position in the chain. */
export interface EthLog {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
  readonly blockNumber: number;
  readonly blockHash: Uint8Array;
  readonly transactionHash: Uint8Array;
  readonly transactionIndex: number;
  /** Index within the block. */
  readonly logIndex: number;
  /** The block's timestamp, seconds. */
  readonly blockTimestamp: bigint;
}

/** A transaction receipt. */
export interface EthReceipt {
  readonly transactionHash: Uint8Array;
  readonly transactionIndex: number;
  readonly blockHash: Uint8Array;
  readonly blockNumber: number;
  /** The block's timestamp, seconds. */
  readonly blockTimestamp: bigint;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  /** The created contract for a creation, also a failed one (the address it would have had, as geth reports); else null. */
  readonly contractAddress: Uint8Array | null;
  readonly logs: readonly EthLog[];
  readonly logsBloom: Uint8Array;
  /** 1 success, 0 failure. */
  readonly status: 0 | 1;
  readonly type: number;
  /** A blob transaction's blob gas (EIP-4844). */
  readonly blobGasUsed?: bigint;
  /** The blob base fee of the block of a blob transaction. */
  readonly blobGasPrice?: bigint;
}

/**
 * A log filter over a resolved block range. `topics[i]` null matches anything at position i;
 * a list matches any of its entries.
 */
export interface LogQuery {
  readonly fromBlock: number;
  readonly toBlock: number;
  readonly addresses: readonly Uint8Array[];
  readonly topics: readonly (readonly Uint8Array[] | null)[];
}

/** Per-account overrides of `eth_call` / `eth_estimateGas` (geth's state override set). */
export interface AccountOverride {
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: Uint8Array;
  /** Replaces the whole storage. */
  readonly state?: ReadonlyMap<string, Uint8Array>;
  /** Patches individual slots; keys are 0x-hex 32-byte slots. */
  readonly stateDiff?: ReadonlyMap<string, Uint8Array>;
}

/** Overrides keyed by lower-case 0x address. */
export type StateOverrides = ReadonlyMap<string, AccountOverride>;

/** A message call as `eth_call` receives it; absent fields take the executor's defaults. */
export interface CallRequest {
  readonly from?: Uint8Array;
  readonly to?: Uint8Array;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly value?: bigint;
  readonly input?: Uint8Array;
  readonly nonce?: bigint;
  readonly accessList?: readonly AccessListEntry[];
}

/** The outcome of a simulated call. */
export type CallOutcome =
  | { readonly status: 'success'; readonly returnData: Uint8Array; readonly gasUsed: bigint }
  | { readonly status: 'reverted'; readonly returnData: Uint8Array; readonly gasUsed: bigint }
  /** A failure before or outside the EVM's revert path (out of gas, insufficient funds, …), in geth's words. */
  | { readonly status: 'failed'; readonly message: string };

/** The outcome of a gas estimation: the gas on success, else why the call cannot succeed. */
export type EstimateOutcome =
  | { readonly status: 'success'; readonly gas: bigint }
  | { readonly status: 'reverted'; readonly returnData: Uint8Array }
  | { readonly status: 'failed'; readonly message: string };

/** eth_createAccessList's answer, or why the message could not be run at all. */
export type AccessListOutcome =
  | {
      readonly status: 'success';
      readonly accessList: readonly AccessListEntry[];
      readonly gasUsed: bigint;
      /** geth's text of the message's EVM failure, when it failed. */
      readonly error?: string;
    }
  | { readonly status: 'failed'; readonly message: string };

/** One entry of eth_simulateV1's `blockStateCalls`. */
export interface SimulatedBlockRequest {
  readonly blockOverrides?: BlockOverrides;
  readonly stateOverrides?: StateOverrides;
  /** The state overrides' `movePrecompileToAddress`: the precompile at `from` answers at `to`. */
  readonly movePrecompiles?: readonly { readonly from: Uint8Array; readonly to: Uint8Array }[];
  readonly calls: readonly CallRequest[];
}

/** eth_simulateV1's first parameter. */
export interface SimulateRequest {
  readonly blocks: readonly SimulatedBlockRequest[];
  readonly traceTransfers: boolean;
  readonly validation: boolean;
  readonly returnFullTransactions: boolean;
}

/** The outcome of one simulated call; logs are positioned in their simulated block. */
export interface SimulatedCallOutcome {
  readonly status: 0 | 1;
  readonly returnData: Uint8Array;
  readonly gasUsed: bigint;
  readonly logs: readonly EthLog[];
  readonly error?: { readonly code: number; readonly message: string; readonly data?: Uint8Array };
}

/** A simulated block: rendered as a block, with its calls' outcomes. */
export interface SimulatedBlockOutcome {
  readonly block: EthBlock;
  readonly calls: readonly SimulatedCallOutcome[];
}

/** Fee data of one block, for eth_feeHistory. */
export interface BlockFeeData {
  readonly baseFeePerGas: bigint;
  /** Base fee of the block after this one. */
  readonly nextBaseFeePerGas: bigint;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  /** Per transaction: gas used and the priority fee per gas it effectively paid. */
  readonly transactions: readonly { readonly gasUsed: bigint; readonly priorityFeePerGas: bigint }[];
}

/** eth_syncing's progress object, or false when in sync. */
export type SyncStatus = false | { readonly startingBlock: number; readonly currentBlock: number; readonly highestBlock: number };

/** A committed block as pushed to subscribers. */
export interface NewBlockEvent {
  readonly header: EthBlockHeader;
  /** Every log of the block, in order. */
  readonly logs: readonly EthLog[];
}

/** Mempool transactions: `pending` can run next (no nonce gap), `queued` waits for a gap to fill. */
export interface TxPoolContent {
  readonly pending: readonly EthTransaction[];
  readonly queued: readonly EthTransaction[];
}

/** Counts of TxPoolContent, without decoding the transactions. */
export interface TxPoolStatus {
  readonly pending: number;
  readonly queued: number;
}

/** Stops a subscription to the backend. */
export type Unsubscribe = () => void;

/** Everything the eth_/net_/web3_ methods read from or hand to the node. */
export interface EthBackend {
  /** The EVM chain id (EIP-155). */
  chainId(): bigint;
  /** The heights block tags resolve to. */
  heights(): ChainHeights;
  /** The height `id` names, or null when it names no block. */
  heightOf(id: BlockId): MaybePromise<number | null>;
  /** The block `id` names, or null when there is none. */
  block(id: BlockId): MaybePromise<EthBlock | null>;
  /** The number of transactions of the block `id` names (without decoding them), or null when there is none. */
  blockTransactionCount(id: BlockId): MaybePromise<number | null>;
  /** The transaction at `index` of the block `id` names, with its position; null when there is no such block or index. */
  transactionInBlock(id: BlockId, index: number): MaybePromise<LocatedTransaction | null>;
  /** The receipts of the block `id` names, in order, or null when there is none. */
  blockReceipts(id: BlockId): MaybePromise<readonly EthReceipt[] | null>;
  /** This chain's encoding of the header of the block `id` names (keccak256 of it is the block hash), or null. */
  rawHeader(id: BlockId): MaybePromise<Uint8Array | null>;
  /** This chain's encoding of the block `id` names, or null. */
  rawBlock(id: BlockId): MaybePromise<Uint8Array | null>;
  /** The signed envelope of a mined or pending transaction, or null when unknown. */
  rawTransaction(hash: Uint8Array): MaybePromise<Uint8Array | null>;
  /** A transaction by hash: mined (with position) or pending; null when unknown. */
  transactionByHash(hash: Uint8Array): MaybePromise<LocatedTransaction | null>;
  /** The receipt of a mined transaction, or null. */
  receiptByHash(hash: Uint8Array): MaybePromise<EthReceipt | null>;
  /** Logs matching `query`, in chain order. The range is already validated and capped. */
  getLogs(query: LogQuery): MaybePromise<readonly EthLog[]>;
  /** Balance in wei after the block `at` names. */
  getBalance(address: Uint8Array, at: BlockId): MaybePromise<bigint>;
  /** Account nonce after the block `at` names. */
  getNonce(address: Uint8Array, at: BlockId): MaybePromise<bigint>;
  /** Next nonce counting the sender's pending mempool transactions. */
  getPendingNonce(address: Uint8Array): MaybePromise<bigint>;
  /** Contract code after the block `at` names (empty when none). */
  getCode(address: Uint8Array, at: BlockId): MaybePromise<Uint8Array>;
  /** A 32-byte storage word after the block `at` names (zeros when unset). */
  getStorageAt(address: Uint8Array, slot: Uint8Array, at: BlockId): MaybePromise<Uint8Array>;
  /** Simulates a call on the state after the block `at` names. */
  call(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): MaybePromise<CallOutcome>;
  /** Estimates the gas `request` needs on the state after the block `at` names. */
  estimateGas(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): MaybePromise<EstimateOutcome>;
  /** The access list `request` touches on the state after the block `at` names (absent: the method is not offered). */
  createAccessList?(request: CallRequest, at: BlockId, overrides: StateOverrides | undefined): MaybePromise<AccessListOutcome>;
  /** Simulated blocks of calls on the state after the block `at` names; throws SimulationError when refused (absent: not offered). */
  simulate?(request: SimulateRequest, at: BlockId): MaybePromise<readonly SimulatedBlockOutcome[]>;
  /**
   * Hands a signed transaction (RLP / typed envelope) to the mempool; resolves to its hash or
   * throws TransactionRejectedError with geth's wording (nonce too low, already known, …).
   */
  sendRawTransaction(raw: Uint8Array): MaybePromise<Uint8Array>;
  /** Suggested legacy gas price (base fee + tip). */
  gasPrice(): MaybePromise<bigint>;
  /** Suggested priority fee. */
  maxPriorityFeePerGas(): MaybePromise<bigint>;
  /** Fee data of a block, or null when not available. */
  feeData(height: number): MaybePromise<BlockFeeData | null>;
  /** Blob base fee (EIP-4844) a blob transaction in the next block would pay. */
  blobBaseFee(): MaybePromise<bigint>;
  /** Peers the node is connected to. */
  peerCount(): number;
  /** Every mempool transaction, split as geth's txpool splits them. */
  txPool(): MaybePromise<TxPoolContent>;
  /** How many mempool transactions are pending and queued. */
  txPoolStatus(): TxPoolStatus;
  /** Whether the node is catching up. */
  syncing(): MaybePromise<SyncStatus>;
  /** Calls `listener` after each committed block, until the returned function is called. */
  onNewBlock(listener: (event: NewBlockEvent) => void): Unsubscribe;
  /** Calls `listener` with the hash of each transaction the mempool admits, until the returned function is called. */
  onPendingTransaction(listener: (hash: Uint8Array) => void): Unsubscribe;
}
