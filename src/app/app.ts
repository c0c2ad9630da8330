/**
 * The state machine of a node home: executes blocks of EVM transactions on the CommitStore
 * (SC), commits them to an app hash, applies the same changesets to the State Store (SS) at
 * the same version, and answers state queries at the latest or an older height.
 */
import { existsSync } from 'node:fs';

import type { Common } from '@ethereumjs/common';
import { Capability } from '@ethereumjs/tx';

import type { Logger } from '../log/logger.js';
import {
  CommitStore,
  CompositeStateStore,
  encodeChangelogEntry,
  exportStream,
  setEntryVersion,
  restoreMarkerPath,
  type ExportedStream,
  type CommitInfo,
  type CommitStoreOptions,
  type NamedChangeset,
  type StateStoreConfig,
  type StateStoreShare,
  sharedSenderRecovery,
} from '../store/index.js';
import type { BlockContext } from '../evm/block-context.js';
import { CallError, estimateGas as estimateMessageGas, ethCall, type CallRequest, type CallResult, type StateOverrides } from '../evm/call.js';
import { createAccessList as buildAccessList, type AccessListResult } from '../evm/access-list.js';
import { createChainCommon } from '../evm/common.js';
import { simulate as simulateBlocks, type SimulatePayload, type SimulatedBlock, type SimulationBase } from '../evm/simulate.js';
import { ExceedsBlockGasLimitError, TxRejectedError, UnprotectedTxError } from '../evm/errors.js';
import { executeBlockTxs, type ExecutedTx, type SkippedTx } from '../evm/executor.js';
import { BANK_STORE, EVM_STORE, balanceKey, decodeUint, nonceKey } from '../evm/keys.js';
import { NO_BLOCK_HASHES, type BlockHashLookup } from '../evm/block-hashes.js';
import { CodeCache } from '../evm/code-cache.js';
import { CallResultCache } from './call-cache.js';
import type { StateView } from '../evm/state-manager.js';
import { VmPool } from '../evm/vm-pool.js';
import { checkTx, decodeTx, decodeTxs, type DecodedTx } from '../evm/validate.js';
import type { AppReader } from './app-reader.js';
import { mergeChangesets } from './changesets.js';
import { AppClosedError, BlockOrderError, InterruptedRestoreError } from './errors.js';
import { ownExecutionContext, type ExecutionContext } from './execution-context.js';
import { genesisChangesets, type Genesis } from './genesis.js';
import { checkStateStorePresent, reconcileStateStore } from './state-store-check.js';
import { perturbedForTest } from './test-perturbation.js';

/** How App.open opens the stores, plus the RPC gas cap of calls. */
export interface AppOptions {
  commit: CommitStoreOptions;
  ss: StateStoreConfig;
  /** `gas-cap` of eth_call / eth_estimateGas (0 = no cap). Default 50,000,000. */
  gasCap?: number;
  /** Estimated bytes of eth_call outcomes remembered per (height, request); 0 turns the cache off. Default 8 MiB. */
  callCacheBytes?: number;
  /** Admit legacy transactions without EIP-155 replay protection (`allow-unprotected-txs`). Default false. */
  allowUnprotectedTxs?: boolean;
}

/** Stages of a block whose duration the node's metrics record. */
export type BlockStage = 'execute' | 'sc_commit' | 'ss_apply';
/** Told how long each stage of each block took, in seconds. */
export type BlockStageObserver = (stage: BlockStage, seconds: number) => void;

/**
 * Runs eth_call / eth_estimateGas on the SS at a height, off the JavaScript thread that
 * produces blocks (the node's execution workers). Throws CallError subclasses as ethCall does.
 */
export interface CallExecutor {
  call(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<CallResult>;
  estimateGas(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<bigint>;
  createAccessList(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<AccessListResult>;
  simulate(height: number, block: BlockContext, base: SimulationBase, payload: SimulatePayload): Promise<SimulatedBlock[]>;
}

/**
 * The header fields of the block a call runs in (eth_call at height h runs in block h); the
 * base fee and gas limit only where the block has its own (an imported Ethereum block), else
 * the chain's.
 */
export type CallBlock = Pick<BlockContext, 'timeMs' | 'proposer'> & Partial<Pick<BlockContext, 'baseFee' | 'gasLimit'>>;

/** The header fields executeBlock needs. */
export type BlockHeaderInput = BlockContext;

/** The outcome of executeBlock. */
export interface BlockResult {
  height: number;
  /** The SC version committed (equal to the height). */
  version: number;
  /** The app hash after this block (carried by the next block's header). */
  appHash: Uint8Array;
  /** Every raw transaction in order: executed with its receipt, or skipped with a reason. */
  txs: Array<ExecutedTx | SkippedTx>;
  gasUsed: bigint;
  logsBloom: Uint8Array;
  receiptsRoot: Uint8Array;
}

/** A block's execution results before its commit: everything of BlockResult but the commit. */
export type BlockExecution = Omit<BlockResult, 'version' | 'appHash'>;

/**
 * Work run beside a block's commit, once the block has executed (a follower writes the block
 * there). It must not touch the state; `committed` resolves when the commit has.
 */
export type WhileCommitting = (execution: BlockExecution, committed: Promise<void>) => Promise<void>;

/** The state a call or trace runs on: a committed height and its view. */
export interface StateAt {
  readonly height: number;
  readonly view: StateView;
}

/** What the mempool needs of an admitted transaction. */
export interface AdmittedTx {
  hash: Uint8Array;
  sender: Uint8Array;
  nonce: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  value: bigint;
  type: number;
  /** The sender's nonce in the latest state, as the check read it. */
  accountNonce: bigint;
}

/** validateTx's answer: the admitted transaction, or the typed reason it is refused. */
export type TxValidation = { ok: true; tx: AdmittedTx } | { ok: false; error: TxRejectedError };

const DEFAULT_GAS_CAP = 50_000_000;
/**
 * Call outcomes remembered, in estimated bytes: about 2,600 `balanceOf`-sized entries, about as
 * many distinct calls as the node executes in a one-second block interval, and a popular read
 * is worth remembering within its block. A larger budget held outcomes at heights readers had
 * left (bench:soak: 8 MiB filled within 10 minutes and added to the main heap's growth).
 */
const DEFAULT_CALL_CACHE_BYTES = 2 * 1024 * 1024;

/** The state machine over one node home's stores. */
export class App implements AppReader {
  readonly genesis: Genesis;
  /** Chain rules (Prague, the EVM chain id, native crypto). */
  readonly common: Common;
  readonly #sc: CommitStore;
  readonly #ss: CompositeStateStore;
  readonly #logger: Logger;
  readonly #gasCap: bigint;
  /** Contract code by hash, shared by every execution of this chain. */
  readonly #codes = new CodeCache();
  /**
   * Transactions decoded by validateTx, by raw-bytes identity: the mempool hands the same
   * arrays to executeBlock, which then skips a second sender recovery.
   */
  readonly #admitted = new WeakMap<Uint8Array, DecodedTx>();
  /** Block hashes for BLOCKHASH, from the block store once the node attaches it. */
  #blockHashes: BlockHashLookup = NO_BLOCK_HASHES;
  readonly #blockHash: BlockHashLookup = (height) => this.#blockHashes(height);
  readonly #latestState: StateView = {
    get: (store, key) => this.#sc.get(store, key),
    getManyPacked: (store, packedKeys, keyLengths) => this.#sc.getManyPacked(store, packedKeys, keyLengths),
  };
  /** VMs reused across eth_call / eth_estimateGas requests run on this thread. */
  readonly #callVms: VmPool;
  /** Where calls run once the node attaches its execution workers. */
  #callExecutor: CallExecutor | undefined;
  readonly #callCache: CallResultCache;
  /** Genesis changesets staged by initChain, merged into the first block's SS version. */
  #pendingGenesis: NamedChangeset[] | undefined;
  #genesisHash: Uint8Array | undefined;
  #closed = false;
  #observeStage: BlockStageObserver = () => undefined;
  /** True from staging a block's changesets in the SC until its commit settles. */
  #committing = false;
  /** Serialises executeBlock calls. */
  #executing: Promise<unknown> = Promise.resolve();

  readonly #allowUnprotectedTxs: boolean;

  private constructor(genesis: Genesis, sc: CommitStore, ss: CompositeStateStore, logger: Logger, options: AppOptions) {
    const gasCap = options.gasCap ?? DEFAULT_GAS_CAP;
    this.#allowUnprotectedTxs = options.allowUnprotectedTxs ?? false;
    this.genesis = genesis;
    this.common = createChainCommon(genesis.evm_chain_id);
    this.#sc = sc;
    this.#ss = ss;
    this.#logger = logger;
    this.#gasCap = BigInt(gasCap);
    this.#callVms = new VmPool(this.common, this.#codes, this.#blockHash);
    this.#callCache = new CallResultCache(options.callCacheBytes ?? DEFAULT_CALL_CACHE_BYTES);
  }

  /**
   * Opens the SC and SS under `dataDir`. Every check that can refuse — an unfinished snapshot
   * restore, a missing SS, the split safety checks — runs first, on what is on disk, so a
   * refused open changes nothing.
   */
  static async open(dataDir: string, options: AppOptions, genesis: Genesis, logger: Logger): Promise<App> {
    if (existsSync(restoreMarkerPath(dataDir))) {
      throw new InterruptedRestoreError(
        `${dataDir} holds a snapshot restore that did not finish (${restoreMarkerPath(dataDir)}); its state is partial and is never served: ` +
          'run the restore again (it discards the partial import first), or empty the data directory',
      );
    }
    checkStateStorePresent(undefined, options.ss, dataDir);
    await CompositeStateStore.preflight(dataDir, options.ss);
    const sc = await CommitStore.open(dataDir, { initialVersion: genesis.initial_height, ...options.commit });
    let ss: CompositeStateStore;
    try {
      checkStateStorePresent(sc, options.ss, dataDir);
      ss = await CompositeStateStore.open(dataDir, options.ss, logger);
    } catch (error) {
      await sc.close();
      throw error;
    }
    try {
      await reconcileStateStore(sc, ss, options.ss, dataDir, logger, genesis.initial_height);
    } catch (error) {
      await ss.close();
      await sc.close();
      throw error;
    }
    return new App(genesis, sc, ss, logger, options);
  }

  #live(): void {
    if (this.#closed) throw new AppClosedError();
  }

  /** The last committed height (0 before the first block). */
  height(): number {
    this.#live();
    return this.#sc.version();
  }

  /** The app hash after the last committed block; before it, the staged genesis hash (empty before initChain). */
  appHash(): Uint8Array {
    this.#live();
    if (this.#sc.version() > 0) return this.#sc.lastCommitInfo().appHash;
    return this.#genesisHash ?? new Uint8Array();
  }

  /** The height the next executeBlock must carry. */
  nextHeight(): number {
    const committed = this.height();
    return committed === 0 ? this.genesis.initial_height : committed + 1;
  }

  /** The oldest height state can be read at. */
  earliestHeight(): number {
    this.#live();
    const earliest = Number(this.#ss.earliestVersion());
    return Math.max(earliest, this.genesis.initial_height);
  }

  /** Bytes of memiavl tree nodes in memory per Cosmos store (they stay until the next SC snapshot). */
  commitTreeMemory(): Record<string, number> {
    this.#live();
    return this.#sc.treeMemory();
  }

  /** Estimated bytes the eth_call result cache holds. */
  callCacheBytes(): number {
    return this.#callCache.bytes;
  }

  /** The most estimated bytes the eth_call result cache holds. */
  callCacheCapacity(): number {
    return this.#callCache.capacity;
  }

  /**
   * Stages the genesis state when nothing is committed yet and returns the app hash block
   * `initial_height` must carry; once blocks exist it returns the last app hash. `state`
   * replaces the state genesis.json describes (an imported chain's genesis alloc).
   */
  async initChain(state?: NamedChangeset[]): Promise<Uint8Array> {
    this.#live();
    if (this.#sc.version() > 0) return this.appHash();
    if (this.#pendingGenesis === undefined) {
      const changesets = state ?? genesisChangesets(this.genesis);
      this.#sc.applyChangesets(changesets);
      this.#pendingGenesis = changesets;
      this.#genesisHash = (await this.#sc.working()).appHash;
      this.#logger.info('staged genesis state', { chainId: this.genesis.chain_id, accounts: this.genesis.accounts.length, appHash: Buffer.from(this.#genesisHash).toString('hex') });
    }
    return this.#genesisHash!;
  }

  /**
   * Executes and commits one block; blocks must come in height order. `whileCommitting` runs
   * beside the commit, and the result waits for both (the first failure is thrown).
   */
  executeBlock(header: BlockHeaderInput, rawTxs: readonly Uint8Array[], whileCommitting?: WhileCommitting): Promise<BlockResult> {
    const run = this.#executing.then(() => this.#executeBlock(header, rawTxs, whileCommitting));
    this.#executing = run.catch(() => undefined);
    return run;
  }

  /**
   * Exports the committed state's snapshot stream into a temporary directory of `root`. It
   * runs between blocks — after a running executeBlock, and the next one waits for it — since
   * the commit store cannot export with changes staged. Cutting the stream into chunks
   * (finishSnapshot) needs nothing of the app and runs beside block production.
   */
  exportSnapshotStream(root: string): Promise<ExportedStream> {
    const run = this.#executing.then(() => {
      this.#live();
      return exportStream(this.#sc, root);
    });
    this.#executing = run.catch(() => undefined);
    return run;
  }

  async #executeBlock(header: BlockHeaderInput, rawTxs: readonly Uint8Array[], whileCommitting?: WhileCommitting): Promise<BlockResult> {
    this.#live();
    const expected = this.nextHeight();
    if (header.height !== expected) {
      throw new BlockOrderError(`cannot execute block ${header.height}: the next height is ${expected}`);
    }
    if (this.#sc.version() === 0 && this.#pendingGenesis === undefined) {
      throw new BlockOrderError(`cannot execute block ${header.height} before initChain has staged the genesis state`);
    }
    const started = performance.now();
    const execution = await executeBlockTxs(this.common, this.#latestState, header, rawTxs, {
      decode: (raw) => this.#admitted.get(raw) ?? decodeTx(raw, this.common),
      hashes: this.#blockHash,
    });
    this.#observeStage('execute', (performance.now() - started) / 1000);
    const committing = this.#commit(perturbedForTest(header.height, execution.changesets));
    let info: { version: number; appHash: Uint8Array };
    if (whileCommitting === undefined) {
      info = await committing;
    } else {
      const committed = committing.then(() => undefined);
      committed.catch(() => undefined); // the outcome is taken from `committing` below
      const { txs, gasUsed, logsBloom, receiptsRoot } = execution;
      const beside = (async () => whileCommitting({ height: header.height, txs, gasUsed, logsBloom, receiptsRoot }, committed))();
      // Both run to the end before this returns: the next block must not start while either does.
      const [commitOutcome, besideOutcome] = await Promise.allSettled([committing, beside]);
      if (commitOutcome.status === 'rejected') throw commitOutcome.reason;
      if (besideOutcome.status === 'rejected') throw besideOutcome.reason;
      info = commitOutcome.value;
    }
    const skipped = execution.txs.filter((t) => t.kind === 'skipped').length;
    this.#logger.debug('executed block', {
      height: header.height,
      txs: execution.txs.length - skipped,
      skipped,
      gasUsed: execution.gasUsed,
      appHash: Buffer.from(info.appHash).toString('hex'),
      ms: Math.round(performance.now() - started),
    });
    return {
      height: header.height,
      version: info.version,
      appHash: info.appHash,
      txs: execution.txs,
      gasUsed: execution.gasUsed,
      logsBloom: execution.logsBloom,
      receiptsRoot: execution.receiptsRoot,
    };
  }

  /** Commits one block's changesets to the SC (the app hash) and applies them to the SS at that version. */
  async #commit(changesets: NamedChangeset[]): Promise<{ version: number; appHash: Uint8Array }> {
    const started = performance.now();
    this.#committing = true;
    let info: CommitInfo;
    // Encoded once: the SC stages a copy, then the SS logs the same bytes at the new version.
    let entry: Buffer;
    try {
      entry = encodeChangelogEntry(0, changesets);
      this.#sc.applyEncoded(entry);
      info = await this.#sc.commit();
    } finally {
      this.#committing = false;
    }
    const committed = performance.now();
    this.#observeStage('sc_commit', (committed - started) / 1000);
    const genesis = this.#pendingGenesis;
    this.#pendingGenesis = undefined;
    // After the SC was brought back below the SS (`stratad rollback --to-intact`), a
    // re-executed block's version is already in the SS from its first execution, which the
    // stored headers' app hashes confirm it reproduces; the SS never goes back.
    if (info.version < Number(this.#ss.latestVersion())) return info;
    if (genesis) {
      await this.#ss.applyChangesets(info.version, mergeChangesets(genesis, changesets));
    } else {
      setEntryVersion(entry, info.version);
      await this.#ss.applyEncoded(entry);
    }
    this.#observeStage('ss_apply', (performance.now() - committed) / 1000);
    return info;
  }

  /**
   * Commits block `height`'s changesets as executed elsewhere (an imported chain's blocks,
   * which run under that chain's rules) and returns the app hash after it.
   */
  commitExecutedBlock(height: number, changesets: NamedChangeset[]): Promise<Uint8Array> {
    const run = this.#executing.then(async () => {
      this.#live();
      const expected = this.nextHeight();
      if (height !== expected) throw new BlockOrderError(`cannot commit block ${height}: the next height is ${expected}`);
      if (this.#sc.version() === 0 && this.#pendingGenesis === undefined) {
        throw new BlockOrderError(`cannot commit block ${height} before initChain has staged the genesis state`);
      }
      return (await this.#commit(changesets)).appHash;
    });
    this.#executing = run.catch(() => undefined);
    return run;
  }

  /** Reports each block stage's duration to `observer` from now on (the node's metrics). */
  observeBlockStages(observer: BlockStageObserver): void {
    this.#observeStage = observer;
  }

  /** Where BLOCKHASH finds ancestor hashes (the node's block store); zero hashes until set. */
  useBlockHashes(lookup: BlockHashLookup): void {
    this.#blockHashes = lookup;
  }

  /** Runs later eth_call / eth_estimateGas on `executor` (undefined: on this thread again). */
  useCallExecutor(executor: CallExecutor | undefined): void {
    this.#callExecutor = executor;
  }

  /**
   * Tokens with which another thread of this process reads the SS (the execution workers). The
   * SS holds every committed height once applied, so the workers never touch the SC.
   */
  stateStoreShare(): StateStoreShare {
    this.#live();
    return this.#ss.share();
  }

  /**
   * The executor for a call on the state at `height`: the attached one once the SS has
   * applied that height (it applies a block just after the SC commits it; height 0, before
   * the first block, is the genesis state, which the executor derives from the genesis file).
   */
  async #executorAt(height: number): Promise<CallExecutor | undefined> {
    const executor = this.#callExecutor;
    if (executor === undefined) return undefined;
    await this.awaitStored();
    return this.storedHeight() >= height ? executor : undefined;
  }

  /**
   * Resolves once the SS has applied every committed height, which it does just after the SC
   * commits each: from then on, a reader of the SS alone (an execution worker) sees them all.
   */
  async awaitStored(): Promise<void> {
    this.#live();
    if (this.storedHeight() < this.height()) await this.#ss.drain();
  }

  /**
   * The latest committed state, read from the SC (the staged genesis state before block 1).
   * While the next block's state is being committed the SC already answers with it and makes
   * every read wait for the commit, so the state at height() then comes from the SS, which
   * has applied it.
   */
  latestView(): StateView {
    this.#live();
    if (this.#committing) {
      const height = this.#sc.version();
      if (height > 0 && Number(this.#ss.latestVersion()) >= height) return this.storedView(height);
    }
    return this.#latestState;
  }

  /** Whether a block's state is being committed now (latest reads then come from the SS). */
  get committing(): boolean {
    return this.#committing;
  }

  /**
   * The SS state at `height`, unchecked: the provider layer decides which heights are
   * readable and which view serves them.
   */
  storedView(height: number): StateView {
    this.#live();
    const ss = this.#ss;
    return { get: (store, key) => ss.get(store, height, key) };
  }

  /** The newest version the SS has applied. */
  storedHeight(): number {
    this.#live();
    return Number(this.#ss.latestVersion());
  }

  /**
   * The block a call at `height` runs in: that height's number, the given header fields of
   * block `height` (now and no proposer when not given) and the chain's fee parameters.
   */
  #callBlock(height: number, header?: CallBlock): BlockContext {
    return {
      height,
      timeMs: header?.timeMs ?? Date.now(),
      proposer: header?.proposer ?? new Uint8Array(20),
      baseFee: header?.baseFee ?? BigInt(this.genesis.params.min_base_fee),
      gasLimit: header?.gasLimit ?? BigInt(this.genesis.params.block_gas_limit),
    };
  }

  /**
   * eth_call on `state` in the block `header` describes, with state overrides; throws
   * CallRevertedError / CallFailedError. Without overrides and with a header (so the outcome
   * is fixed) the outcome is cached.
   */
  async call(request: CallRequest, state: StateAt, overrides: StateOverrides = [], header?: CallBlock): Promise<CallResult> {
    this.#live();
    const { view } = state;
    const block = this.#callBlock(state.height, header);
    const key = overrides.length === 0 && header !== undefined ? this.#callCache.key(block, request) : undefined;
    const cached = key === undefined ? undefined : this.#callCache.get(key);
    if (cached !== undefined) {
      if (cached.ok) return cached.result;
      throw cached.error;
    }
    try {
      const executor = await this.#executorAt(state.height);
      const result = executor
        ? await executor.call(state.height, block, request, overrides)
        : await ethCall({ common: this.common, vms: this.#callVms, view, block, gasCap: this.#gasCap }, request, overrides);
      if (key !== undefined) this.#callCache.set(key, { ok: true, result });
      return result;
    } catch (error) {
      if (key !== undefined && error instanceof CallError) this.#callCache.set(key, { ok: false, error });
      throw error;
    }
  }

  /** eth_estimateGas on `state` with state overrides, in the block `header` describes (as call). */
  async estimateGas(request: CallRequest, state: StateAt, overrides: StateOverrides = [], header?: CallBlock): Promise<bigint> {
    this.#live();
    const block = this.#callBlock(state.height, header);
    const executor = await this.#executorAt(state.height);
    if (executor) return executor.estimateGas(state.height, block, request, overrides);
    return estimateMessageGas({ common: this.common, vms: this.#callVms, view: state.view, block, gasCap: this.#gasCap }, request, overrides);
  }

  /** eth_createAccessList on `state` with state overrides; a refused message throws CallFailedError. */
  async createAccessList(request: CallRequest, state: StateAt, overrides: StateOverrides = [], header?: CallBlock): Promise<AccessListResult> {
    this.#live();
    const block = this.#callBlock(state.height, header);
    const executor = await this.#executorAt(state.height);
    if (executor) return executor.createAccessList(state.height, block, request, overrides);
    return buildAccessList({ common: this.common, vms: this.#callVms, view: state.view, block, gasCap: this.#gasCap }, request, overrides);
  }

  /**
   * eth_simulateV1 on `state` (after block `base`); throws SimulationError when geth refuses
   * the whole simulation. The chain's fee parameters fill in the base block's gas limit and fee.
   */
  async simulate(payload: SimulatePayload, state: StateAt, base: Omit<SimulationBase, 'gasLimit' | 'baseFee'>, header?: CallBlock): Promise<SimulatedBlock[]> {
    this.#live();
    const block = this.#callBlock(state.height, header);
    const full: SimulationBase = { ...base, gasLimit: block.gasLimit, baseFee: block.baseFee };
    const executor = await this.#executorAt(state.height);
    if (executor) return executor.simulate(state.height, block, full, payload);
    return simulateBlocks({ common: this.common, vms: this.#callVms, view: state.view, block, gasCap: this.#gasCap }, full, payload);
  }

  /**
   * Mempool admission against the latest state: decodes and checks the signature, chain id,
   * replay protection, gas within the block gas limit, intrinsic gas, fee ≥ `baseFee`, nonce ≥
   * the sender's nonce and funds.
   */
  validateTx(raw: Uint8Array, baseFee: bigint = BigInt(this.genesis.params.min_base_fee)): TxValidation {
    this.#live();
    try {
      const decoded = this.#admitted.get(raw) ?? decodeTx(raw, this.common);
      if (!this.#allowUnprotectedTxs && decoded.type === 0 && !decoded.tx.supports(Capability.EIP155ReplayProtection)) throw new UnprotectedTxError();
      const blockGasLimit = BigInt(this.genesis.params.block_gas_limit);
      if (decoded.gasLimit > blockGasLimit) throw new ExceedsBlockGasLimitError(decoded.gasLimit, blockGasLimit);
      this.#admitted.set(raw, decoded);
      const view = this.latestView();
      const sender = decoded.sender.bytes;
      const account = {
        nonce: decodeUint(view.get(EVM_STORE, nonceKey(sender))),
        balance: decodeUint(view.get(BANK_STORE, balanceKey(sender))),
      };
      checkTx(decoded, account, baseFee, 'not-below');
      return {
        ok: true,
        tx: {
          hash: decoded.hash,
          sender: decoded.sender.bytes,
          nonce: decoded.nonce,
          gasLimit: decoded.gasLimit,
          maxFeePerGas: decoded.maxFeePerGas,
          maxPriorityFeePerGas: decoded.maxPriorityFeePerGas,
          value: decoded.value,
          type: decoded.type,
          accountNonce: account.nonce,
        },
      };
    } catch (error) {
      if (error instanceof TxRejectedError) return { ok: false, error };
      throw error;
    }
  }

  /**
   * Decodes `raws` and recovers their senders in one native batch, ahead of executing or
   * admitting them: a follower does this for the next synced block while the current one
   * executes, the RPC for a batch of eth_sendRawTransaction. executeBlock and validateTx reuse
   * the result, so no sender is recovered twice. An undecodable tx is left for them to report.
   */
  async prepareTxs(raws: readonly Uint8Array[]): Promise<void> {
    const todo = raws.filter((raw) => !this.#admitted.has(raw));
    if (todo.length === 0) return;
    const results = await decodeTxs(todo, this.common, sharedSenderRecovery());
    results.forEach((result, i) => {
      if (result.ok) this.#admitted.set(todo[i]!, result.decoded);
    });
  }

  /** The RPC gas cap of calls (0 = none), which debug_traceCall also runs under. */
  get gasCap(): bigint {
    return this.#gasCap;
  }

  /** The execution context of a block this chain produced. */
  ownExecutionContext(header: BlockHeaderInput, blockHash: Uint8Array): ExecutionContext {
    return ownExecutionContext(this.common, header, blockHash, this.#blockHash);
  }

  /**
   * Rolls the committed state back to `target` and returns the app hash there: the SC discards
   * its later versions, then the SS (both sides of a split node) removes every version above
   * the target, so a rollback can be repeated and go back any number of blocks the SC's
   * history reaches. A target the SC or the pruned SS cannot reach is refused before anything
   * changes; an SS left ahead by an interrupted rollback is brought down by the next one.
   */
  async rollback(target: number): Promise<Uint8Array> {
    this.#live();
    await this.#executing;
    await this.#ss.drain();
    const ssEarliest = Number(this.#ss.earliestVersion());
    if (target < ssEarliest) {
      throw new BlockOrderError(
        `cannot roll back to height ${target}: the state store was pruned below height ${ssEarliest} (ss-keep-recent); ` +
          'restore the node from a state-sync snapshot instead',
      );
    }
    this.#pendingGenesis = undefined;
    this.#genesisHash = undefined;
    this.#callCache.clear();
    const info = await this.#sc.rollback(target);
    await this.#ss.rollback(target);
    return info.appHash;
  }

  /** Waits for executing blocks, drains the SS and closes both stores. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#executing;
    this.#closed = true;
    await this.#ss.drain();
    await this.#ss.close();
    await this.#sc.close();
  }
}
