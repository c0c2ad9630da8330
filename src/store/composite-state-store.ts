/**
 * CompositeStateStore: the node's State Store (SS). Without the split it is one MVCC store
 * holding every module store. With `evm-ss-split = true`, changesets of store "evm" go only to
 * the EVM SS (`data/evm_ss/`) and all others only to the Cosmos SS; reads of "evm" are served
 * only by the EVM SS, with no fallback. Opening a split node runs the three startup safety
 * checks (split-checks.ts) and recovers both sides from their changelogs.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { encodeChangelogEntry } from './changelog-entry.js';
import { InvalidArgumentError } from './errors.js';
import type { MemoryBudget } from './memory-budget.js';
import { EvmStateStore } from './evm-state-store.js';
import { MvccStore } from './mvcc-store.js';
import { PruningManager } from './pruning-manager.js';
import { BorrowedStateStore } from './state-store.js';
import {
  checkEarliestVersions,
  checkEvmDirectory,
  checkEvmNotEmpty,
  directoryState,
  hasHistory,
  type SideVersions,
} from './split-checks.js';
import type {
  Backend,
  IteratorOptions,
  MvccIterator,
  NamedChangeset,
  PruneResult,
  StateStore,
  Version,
} from './state-store.js';

/** The `[state-store]` settings the SS reads from app.toml. */
export interface StateStoreConfig {
  /** `ss-backend`. */
  backend: Backend;
  /** `evm-ss-split`. */
  evmSsSplit: boolean;
  /** `evm-ss-separate-dbs`. */
  evmSsSeparateDbs: boolean;
  /** `ss-async-write-buffer`. */
  asyncWriteBuffer: number;
  /** `ss-keep-recent` (0 = keep everything). */
  keepRecent: number;
  /** `ss-prune-interval`, seconds. */
  pruneIntervalSeconds: number;
  /** The process's shared RocksDB memory; each DB has its own cache without it. */
  memoryBudget?: MemoryBudget;
}

/** Defaults of the `[state-store]` settings. */
export const DEFAULT_STATE_STORE_CONFIG: StateStoreConfig = {
  backend: 'pebbledb',
  evmSsSplit: false,
  evmSsSeparateDbs: false,
  asyncWriteBuffer: 100,
  keepRecent: 100_000,
  pruneIntervalSeconds: 600,
};

/** The store whose changesets the EVM SS takes when the split is on. */
export const EVM_STORE = 'evm';

/** `data/pebbledb` or `data/rocksdb`: the Cosmos SS (the only SS without the split). */
export function cosmosStoreDir(dataDir: string, backend: Backend): string {
  return join(dataDir, backend);
}

/** `data/evm_ss`: the EVM SS. */
export function evmStoreDir(dataDir: string): string {
  return join(dataDir, 'evm_ss');
}

/** Sub-DB directories of an EVM SS with `evm-ss-separate-dbs` (see evm_state_store.h). */
const EVM_SUB_DBS = ['nonce', 'codehash', 'code', 'storage', 'legacy'];

/** Marks an EVM SS created together with the chain's first block (see checkEvmNotEmpty). */
const FROM_GENESIS_FILE = 'FROM_GENESIS';

/** Whether an empty EVM SS may be rebuilt from the Cosmos changelog starting at `logStart`. */
function rebuildableFromGenesis(evmDir: string, logStart: Version | undefined): boolean {
  return existsSync(join(evmDir, FROM_GENESIS_FILE)) && logStart !== undefined && BigInt(logStart) <= 1n;
}

/** Records a prune's target before either side's floor moves (see prune). */
const PRUNE_TARGET_FILE = 'PRUNE_TARGET';

function versionsOf(store: StateStore): SideVersions {
  return { latest: store.latestVersion(), earliest: store.earliestVersion() };
}

function minVersion(a: Version, b: Version): Version {
  return BigInt(a) <= BigInt(b) ? a : b;
}

function maxVersion(a: Version, b: Version): Version {
  return BigInt(a) >= BigInt(b) ? a : b;
}

/** A store directory RocksDB has finished creating (a crash can leave only our marker). */
function holdsDatabase(dir: string): boolean {
  return existsSync(join(dir, 'CURRENT'));
}

/** What the dry run needs of the Cosmos SS, read without changing anything. */
interface CosmosPeek extends SideVersions {
  logStart: Version | undefined;
}

async function peekCosmos(dir: string, backend: Backend): Promise<CosmosPeek> {
  if (!holdsDatabase(dir)) return { latest: 0, earliest: 0, logStart: undefined };
  const store = await MvccStore.open(dir, { backend, readOnly: true, createIfMissing: false });
  try {
    return { ...versionsOf(store), logStart: store.firstLoggedVersion() };
  } finally {
    await store.close();
  }
}

/** The EVM SS's versions, read without changing anything; a DB not yet created counts as empty. */
async function peekEvm(dir: string, backend: Backend, separateDbs: boolean): Promise<SideVersions> {
  const dirs = separateDbs ? EVM_SUB_DBS.map((name) => join(dir, name)) : [dir];
  let latest: Version | undefined;
  let earliest: Version = 0;
  for (const db of dirs) {
    let side: SideVersions = { latest: 0, earliest: 0 };
    if (holdsDatabase(db)) {
      const store = await MvccStore.open(db, { backend, readOnly: true, createIfMissing: false });
      side = versionsOf(store);
      await store.close();
    }
    latest = latest === undefined ? side.latest : minVersion(latest, side.latest);
    earliest = maxVersion(earliest, side.earliest);
  }
  return { latest: latest ?? 0, earliest };
}

/** The floor an interrupted prune was moving both sides to, if any. */
function pendingPruneTarget(cosmosDir: string): bigint | undefined {
  const file = join(cosmosDir, PRUNE_TARGET_FILE);
  return existsSync(file) ? BigInt(readFileSync(file, 'utf8').trim()) : undefined;
}

function withFloor(side: SideVersions, floor: bigint | undefined): SideVersions {
  return floor === undefined ? side : { ...side, earliest: maxVersion(side.earliest, floor) };
}

/** Raises both sides' earliest version to `floor`, then forgets the pending target. */
function completePruneFloor(cosmosDir: string, cosmos: MvccStore, evm: EvmStateStore, floor: bigint): void {
  cosmos.setEarliestVersion(floor);
  evm.setEarliestVersion(floor);
  rmSync(join(cosmosDir, PRUNE_TARGET_FILE), { force: true });
}

/** One side of the SS as another thread attaches to it. */
export interface SharedStoreToken {
  readonly token: number;
  readonly backend: Backend;
}

/** What another thread of this process needs to read the SS: a token per side. */
export interface StateStoreShare {
  readonly cosmos: SharedStoreToken;
  readonly evm?: SharedStoreToken;
}

/**
 * Point reads of the SS from another thread of this process (an execution worker), routed
 * like CompositeStateStore's: `evm` keys from the EVM SS on a split node.
 */
export class SharedStateReader {
  private constructor(
    private readonly cosmos: BorrowedStateStore,
    private readonly evm: BorrowedStateStore | undefined,
  ) {}

  /** Attaches to the SS `share` names. */
  static attach(share: StateStoreShare): SharedStateReader {
    const cosmos = BorrowedStateStore.attach(share.cosmos.token, share.cosmos.backend);
    const evm = share.evm ? BorrowedStateStore.attach(share.evm.token, share.evm.backend) : undefined;
    return new SharedStateReader(cosmos, evm);
  }

  /** Newest value of `key` in `store` at or below `version`. */
  get(store: string, version: Version, key: Uint8Array): Buffer | undefined {
    return (this.evm && store === EVM_STORE ? this.evm : this.cosmos).get(store, version, key);
  }

  /** The newest version both sides have applied. */
  latestVersion(): Version {
    return this.evm ? minVersion(this.cosmos.latestVersion(), this.evm.latestVersion()) : this.cosmos.latestVersion();
  }

  /** The highest floor of the two sides. */
  earliestVersion(): Version {
    return this.evm ? maxVersion(this.cosmos.earliestVersion(), this.evm.earliestVersion()) : this.cosmos.earliestVersion();
  }

  /** Lets go of both sides (the owner keeps them open). */
  async close(): Promise<void> {
    await this.evm?.close();
    await this.cosmos.close();
  }
}

/** The node's State Store. */
export class CompositeStateStore {
  /** The Cosmos SS (every store, without the split). */
  readonly cosmos: MvccStore;
  /** The EVM SS, when the split is on. */
  readonly evm: EvmStateStore | undefined;
  readonly #pruning: PruningManager;

  private constructor(cosmos: MvccStore, evm: EvmStateStore | undefined, config: StateStoreConfig, logger: Logger) {
    this.cosmos = cosmos;
    this.evm = evm;
    this.#pruning = new PruningManager(
      this,
      { keepRecent: config.keepRecent, intervalSeconds: config.pruneIntervalSeconds },
      logger,
    );
  }

  /**
   * The three split safety checks as a dry run on read-only views (nothing on disk changes):
   * throws SplitSafetyCheckError when open would refuse. A no-op without the split. Run it
   * before any other store of the home is opened for writing, so a refused start writes nothing.
   */
  static async preflight(dataDir: string, config: StateStoreConfig): Promise<void> {
    if (!config.evmSsSplit) return;
    const cosmosDir = cosmosStoreDir(dataDir, config.backend);
    const evmDir = evmStoreDir(dataDir);
    const pruneTarget = pendingPruneTarget(cosmosDir);
    const cosmosBefore = await peekCosmos(cosmosDir, config.backend);
    checkEvmDirectory(evmDir, cosmosBefore);
    if (directoryState(evmDir) === 'populated') {
      const evmBefore = await peekEvm(evmDir, config.backend, config.evmSsSeparateDbs);
      checkEvmNotEmpty(evmDir, evmBefore, cosmosBefore, rebuildableFromGenesis(evmDir, cosmosBefore.logStart));
      // Recovery replays blocks but never moves an earliest version, so check 3 can run early too.
      checkEarliestVersions(evmDir, cosmosDir, withFloor(evmBefore, pruneTarget), withFloor(cosmosBefore, pruneTarget));
    }
  }

  /**
   * Opens the SS under `dataDir`. With the split on, refuses with SplitSafetyCheckError when
   * the two sides are inconsistent; such a refusal changes nothing on disk.
   */
  static async open(dataDir: string, config: StateStoreConfig, logger: Logger): Promise<CompositeStateStore> {
    const cosmosDir = cosmosStoreDir(dataDir, config.backend);
    const common = { backend: config.backend, asyncWriteBuffer: config.asyncWriteBuffer, ...(config.memoryBudget ? { memoryBudget: config.memoryBudget } : {}) };
    logger.info('StrataDB SS is enabled', { backend: config.backend });
    if (!config.evmSsSplit) {
      const store = new CompositeStateStore(await MvccStore.open(cosmosDir, common), undefined, config, logger);
      store.#pruning.start();
      return store;
    }
    logger.info('StrataDB EVM StateStore optimization is enabled', { separateDBs: config.evmSsSeparateDbs });
    const evmDir = evmStoreDir(dataDir);
    const evmOptions = { ...common, separateDbs: config.evmSsSeparateDbs };

    await CompositeStateStore.preflight(dataDir, config);
    const pruneTarget = pendingPruneTarget(cosmosDir);

    // The real sequence: check 1, open, check 2, recovery, check 3.
    const cosmos = await MvccStore.open(cosmosDir, { ...common, deferRecovery: true, logOnlyStores: [EVM_STORE] });
    let evm: EvmStateStore | undefined;
    try {
      checkEvmDirectory(evmDir, versionsOf(cosmos));
      evm = await EvmStateStore.open(evmDir, { ...evmOptions, deferRecovery: true });
      logger.info('EVM state store enabled', { dir: evmDir, separateDBs: config.evmSsSeparateDbs });
      // A node with no history yet creates its EVM SS with its first block.
      if (!hasHistory(versionsOf(cosmos))) writeFileSync(join(evmDir, FROM_GENESIS_FILE), '');
      checkEvmNotEmpty(evmDir, versionsOf(evm), versionsOf(cosmos),
        rebuildableFromGenesis(evmDir, cosmos.firstLoggedVersion()));
      logger.info('Recovering CompositeStateStore', {
        cosmosVersion: cosmos.latestVersion(),
        evmVersion: evm.latestVersion(),
        changelogPath: join(cosmosDir, 'changelog'),
      });
      await cosmos.recover();
      await evm.recover();
      // The Cosmos SS logs whole blocks: a crash between the two sides' logs is repaired here.
      await evm.catchUpFrom(cosmos);
      if (pruneTarget !== undefined) completePruneFloor(cosmosDir, cosmos, evm, pruneTarget);
      checkEarliestVersions(evmDir, cosmosDir, versionsOf(evm), versionsOf(cosmos));
    } catch (error) {
      await evm?.close();
      await cosmos.close();
      throw error;
    }
    const store = new CompositeStateStore(cosmos, evm, config, logger);
    store.#pruning.start();
    return store;
  }

  /** Whether EVM state lives in its own SS. */
  get split(): boolean {
    return this.evm !== undefined;
  }

  /** The member that serves `store`. */
  storeFor(store: string): StateStore {
    return this.evm && store === EVM_STORE ? this.evm : this.cosmos;
  }

  /**
   * Logs then applies one block. With the split, the Cosmos SS logs the whole block (applying
   * all but "evm") before the EVM SS takes the "evm" changesets, so a block the EVM SS has seen
   * is always in the Cosmos changelog too. Resolves once both sides have it durably.
   */
  async applyChangesets(version: Version, changesets: readonly NamedChangeset[]): Promise<void> {
    await this.applyEncoded(encodeChangelogEntry(version, changesets));
  }

  /** {@link applyChangesets} of a block already encoded as a changelog entry at its version. */
  async applyEncoded(entry: Buffer): Promise<void> {
    await this.cosmos.applyEncoded(entry);
    if (this.evm) await this.evm.applyBlock(entry);
  }

  /** Tokens with which another thread of this process reads this SS ({@link SharedStateReader}). */
  share(): StateStoreShare {
    return {
      cosmos: { token: this.cosmos.share(), backend: this.cosmos.backend },
      ...(this.evm ? { evm: { token: this.evm.share(), backend: this.evm.backend } } : {}),
    };
  }

  /** Resolves once every submitted block is applied on both sides. */
  async drain(): Promise<void> {
    await Promise.all([this.cosmos.drain(), this.evm?.drain()]);
  }

  /** Newest value of `key` in `store` at or below `version`. */
  get(store: string, version: Version, key: Uint8Array): Buffer | undefined {
    return this.storeFor(store).get(store, version, key);
  }

  has(store: string, version: Version, key: Uint8Array): boolean {
    return this.storeFor(store).has(store, version, key);
  }

  getMany(store: string, version: Version, keys: readonly Uint8Array[]): Array<Buffer | undefined> {
    return this.storeFor(store).getMany(store, version, keys);
  }

  /** Iterates `store`; NotSupportedError for "evm" with the split (the EVM SS is point-query only). */
  iterator(store: string, version: Version, options: IteratorOptions = {}): MvccIterator {
    return this.storeFor(store).iterator(store, version, options);
  }

  /** The newest version both sides have applied: every store reads consistently at it. */
  latestVersion(): Version {
    return this.evm ? minVersion(this.cosmos.latestVersion(), this.evm.latestVersion()) : this.cosmos.latestVersion();
  }

  /** The highest floor of the two sides: every read at or above it is served by both. */
  earliestVersion(): Version {
    return this.evm ? maxVersion(this.cosmos.earliestVersion(), this.evm.earliestVersion()) : this.cosmos.earliestVersion();
  }

  /**
   * Prunes both sides to the same height, in parallel, so their earliest versions stay equal.
   * The target is written down before either floor moves, so a crash between the two sides is
   * completed on the next start instead of tripping check 3.
   */
  async prune(version: Version): Promise<PruneResult> {
    if (this.evm) {
      const floor = BigInt(version) + 1n;
      writeFileSync(join(this.cosmos.dir, PRUNE_TARGET_FILE), `${floor}\n`);
      completePruneFloor(this.cosmos.dir, this.cosmos, this.evm, floor);
    }
    const results = await Promise.all([this.cosmos.prune(version), this.evm?.prune(version)]);
    return { versionsDeleted: results.reduce((n, r) => n + (r?.versionsDeleted ?? 0), 0) };
  }

  /**
   * Rolls both sides back to `version` (see StateStore.rollback). The EVM SS goes first: were
   * the Cosmos SS rolled back alone, the EVM side would stay ahead of it and refuse the next
   * block, while an EVM side rolled back alone is caught up again from the Cosmos changelog at
   * the next open.
   */
  async rollback(version: Version): Promise<void> {
    const earliest = this.earliestVersion();
    if (BigInt(version) < BigInt(earliest)) {
      throw new InvalidArgumentError(
        `cannot roll the state store back to height ${version}: heights below ${earliest} were pruned (ss-keep-recent); ` +
          'restore the node from a state-sync snapshot instead',
      );
    }
    await this.evm?.rollback(version);
    await this.cosmos.rollback(version);
  }

  /** One pruning pass as the manager runs it (latest − ss-keep-recent). */
  async pruneNow(): Promise<PruneResult | undefined> {
    return this.#pruning.pruneOnce();
  }

  /** Stops pruning, drains both sides and closes them. */
  async close(): Promise<void> {
    await this.#pruning.stop();
    await this.evm?.close();
    await this.cosmos.close();
  }
}
