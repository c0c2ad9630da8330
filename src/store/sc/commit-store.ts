/**
 * The state-commitment layer (SC): memiavl holds the Cosmos module stores, FlatKV the `evm`
 * store, and every commit yields the app hash over both (memiavl's store roots plus an
 * `evm_lattice` entry carrying FlatKV's hash). The heavy work runs in the native core, off
 * the JavaScript thread; reads are synchronous and wait while a commit is running.
 */
import { join } from 'node:path';

import { encodeChangelogEntry, toVersion } from '../changelog-entry.js';
import { InvalidArgumentError, StoreClosedError, toStoreError } from '../errors.js';
import { native, type NativeCommitResult, type NativeCommitStore, type NativeSnapshotStats } from '../native.js';
import type { MemoryBudget } from '../memory-budget.js';
import { PackedReader } from '../packed-reads.js';
import type { NamedChangeset, Version } from '../state-store.js';

/** Read once: only the kill -9 tests set it. */
const SC_CRASH_AT = process.env.STRATA_TEST_CRASH_AT;

/** The directory of memiavl under a node home's data directory. */
export function memiavlDir(dataDir: string): string {
  return join(dataDir, 'committer.db');
}

/** The directory of FlatKV under a node home's data directory. */
export function flatkvDir(dataDir: string): string {
  return join(dataDir, 'flatkv');
}

/** How the SC stores are opened ([state-commit] in app.toml). */
export interface CommitStoreOptions {
  /** Snapshot every this many versions (`sc-snapshot-interval`; 0 = never). Default 10000. */
  snapshotInterval?: number;
  /** Old snapshots kept besides the newest (`sc-keep-recent`). Default 1. */
  keepRecent?: number;
  /** Version of the first commit when the chain starts above 1. */
  initialVersion?: number;
  /** Threads hashing a commit. Default 2. */
  hashThreads?: number;
  /** Write snapshots in the background (default true). */
  asyncSnapshot?: boolean;
  /** Keep the `evm` store in FlatKV and put `evm_lattice` in the app hash (default true). */
  flatkv?: boolean;
  /** FlatKV's RocksDB block cache when there is no memoryBudget. */
  blockCacheBytes?: number;
  /** The process's shared block cache and memtable limit (replaces blockCacheBytes). */
  memoryBudget?: MemoryBudget;
  /** Pace snapshot writing (`sc-snapshot-write-rate-mbps`; 0 = unlimited, the default here). */
  snapshotWriteRateMbps?: number;
  /**
   * Repair mode of `stratad rollback --to-intact`: cut memiavl's or FlatKV's changelog at a
   * damaged entry and bring memiavl and FlatKV back to the last version both reach, instead of
   * refusing to open with a CorruptionError. Discards committed versions; never for a running
   * node.
   */
  cutDamagedChangelog?: boolean;
}

/** One store's entry of a commit. */
export interface StoreCommitInfo {
  name: string;
  version: number;
  hash: Uint8Array;
}

/** A commit: its version, the app hash and the store entries it was computed from. */
export interface CommitInfo {
  version: number;
  appHash: Uint8Array;
  storeInfos: StoreCommitInfo[];
}

/** Range options of {@link CommitStore.iterate}: [start, end), ascending unless `reverse`. */
export interface RangeOptions {
  start?: Uint8Array;
  end?: Uint8Array;
  reverse?: boolean;
}

/** What a state-sync export or import moved: the version, items and stream bytes. */
export type StateSnapshotStats = NativeSnapshotStats;

const PAGE = 1024;

function toCommitInfo(result: NativeCommitResult): CommitInfo {
  return {
    version: result.version,
    appHash: result.appHash,
    storeInfos: result.storeInfos.map((i) => ({ name: i.name, version: i.version, hash: i.hash })),
  };
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toStoreError(error);
  }
}

function callSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toStoreError(error);
  }
}

/** The SC store of one node home. */
export class CommitStore {
  private closed = false;
  /** The last commit, kept here: reads ask for its version on every call, and the native
   * store would make a caller wait while a commit runs. */
  #last: CommitInfo;
  readonly #reads = new PackedReader();

  private constructor(private readonly store: NativeCommitStore) {
    this.#last = toCommitInfo(store.last());
  }

  #live(): void {
    if (this.closed) throw new StoreClosedError('the commit store is closed; open it again before using it');
  }

  /** Opens (or creates) `data/committer.db` and `data/flatkv` under `dataDir`. */
  static async open(dataDir: string, options: CommitStoreOptions = {}): Promise<CommitStore> {
    const store = await call(() => native.NativeCommitStore.open(memiavlDir(dataDir), flatkvDir(dataDir), options));
    return new CommitStore(store);
  }

  private get native(): NativeCommitStore {
    this.#live();
    return this.store;
  }

  /** Stages one block's changesets for the next commit (`evm` goes to FlatKV). */
  applyChangesets(changesets: readonly NamedChangeset[]): void {
    this.applyEncoded(encodeChangelogEntry(0, changesets));
  }

  /**
   * {@link applyChangesets} of a block already encoded as a changelog entry (its version field
   * is not read). The entry is copied: the caller may reuse the buffer once this returns.
   */
  applyEncoded(entry: Uint8Array): void {
    callSync(() => this.native.apply(entry));
  }

  /** The commit info the staged changes will produce (the working app hash). */
  async working(): Promise<CommitInfo> {
    return toCommitInfo(await call(() => this.native.working()));
  }

  /** Commits the staged changes durably as the next version. */
  async commit(): Promise<CommitInfo> {
    const info = toCommitInfo(await call(() => this.native.commit()));
    this.#last = info;
    // The kill -9 tests' hook (STRATA_TEST_CRASH_AT, validated by node/producer.ts): the
    // window between this commit and the state store's apply of the same version.
    if (SC_CRASH_AT !== undefined && SC_CRASH_AT === `after-sc-commit@${info.version}`) process.kill(process.pid, 'SIGKILL');
    return info;
  }

  /** The last commit (version 0 with no stores before the first). */
  lastCommitInfo(): CommitInfo {
    this.#live();
    return this.#last;
  }

  /** The last committed version. */
  version(): number {
    this.#live();
    return this.#last.version;
  }

  /** The latest value of `key` in `store` (staged changes included), or undefined. */
  get(store: string, key: Uint8Array): Uint8Array | undefined {
    if (!(key instanceof Uint8Array)) throw new InvalidArgumentError('key must be a Uint8Array or Buffer');
    return callSync(() => this.native.get(store, key));
  }

  /** {@link get} for many keys of one store, in one native call. */
  getMany(store: string, keys: readonly Uint8Array[]): Array<Buffer | undefined> {
    return this.#reads.read(keys, (packed, lengths, slots) => callSync(() => this.native.getMany(store, packed, lengths, slots)));
  }

  /** {@link getMany} of keys packed end to end in `packedKeys`, each `keyLengths[i]` bytes long. */
  getManyPacked(store: string, packedKeys: Uint8Array, keyLengths: Int32Array): Array<Buffer | undefined> {
    return this.#reads.readPacked(packedKeys, keyLengths, (packed, lengths, slots) => callSync(() => this.native.getMany(store, packed, lengths, slots)));
  }

  /** Iterates a Cosmos store's latest keys in order (FlatKV's `evm` store cannot iterate). */
  *iterate(store: string, options: RangeOptions = {}): Generator<[Uint8Array, Uint8Array]> {
    const ascending = options.reverse !== true;
    let start: Uint8Array | null = options.start ?? null;
    let end: Uint8Array | null = options.end ?? null;
    for (;;) {
      const page = callSync(() => this.native.range(store, start, end, ascending, PAGE));
      for (let i = 0; i < page.length; i += 2) yield [page[i]!, page[i + 1]!];
      if (page.length < PAGE * 2) return;
      const last = page[page.length - 2]!;
      // Resume just past the last key: ascending at last ‖ 0x00, descending below last.
      if (ascending) start = Buffer.concat([last, Buffer.of(0)]);
      else end = last;
    }
  }

  /** Rolls SC back to `target`, discarding later versions on disk; returns that commit. */
  async rollback(target: Version): Promise<CommitInfo> {
    const v = toVersion(target, 'rollback target');
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidArgumentError('rollback target is too large');
    const info = toCommitInfo(await call(() => this.native.rollback(Number(v))));
    this.#last = info;
    return info;
  }

  /**
   * Writes the committed state to `path` as a state-sync item stream (length-delimited
   * protobuf SnapshotItems: memiavl's stores in IAVL export order, then FlatKV's rows).
   */
  async exportSnapshot(path: string): Promise<StateSnapshotStats> {
    return call(() => this.native.exportSnapshot(path));
  }

  /**
   * Builds a fresh SC under `dataDir` at `version` from a stream written by exportSnapshot.
   * `evm` or legacy `evm_flatkv` sections holding logical evm keys go into FlatKV.
   */
  static async importSnapshot(dataDir: string, version: number, path: string, options: CommitStoreOptions = {}): Promise<StateSnapshotStats> {
    return call(() => native.NativeCommitStore.importSnapshot(memiavlDir(dataDir), flatkvDir(dataDir), version, path, options));
  }

  /** Versions of memiavl's snapshots on disk, ascending. */
  snapshotVersions(): number[] {
    return callSync(() => this.native.snapshotVersions());
  }

  /** Waits for a background snapshot; rejects with its failure. */
  async waitForSnapshot(): Promise<void> {
    await call(() => this.native.waitForSnapshot());
  }

  /** Size and duration of the last finished snapshot. */
  snapshotStats(): { bytes: number; seconds: number } {
    return callSync(() => this.native.snapshotStats());
  }

  /** Bytes of memiavl tree nodes in memory per Cosmos store (written since the last snapshot, or loaded from it on first touch). */
  treeMemory(): Record<string, number> {
    return callSync(() => this.native.treeMemory());
  }

  /** Closes both stores (waits for a running commit or snapshot). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await call(() => this.store.close());
  }
}
