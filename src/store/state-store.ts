/**
 * StateStore: what every state store offers, over the native core — the MVCC store (the
 * Cosmos SS, or the only SS without the split) and the EVM SS.
 *
 * Reads are synchronous point queries (and, on MVCC stores, iterators) at a version. Writes,
 * pruning and import run off the JS thread and return promises. A block's changesets are
 * logged to the store's own changelog before they are applied, so an acknowledged block
 * survives a crash.
 */
import { native, type NativeIterator, type NativeStats, type NativeStore, type NativeStoreOptions } from './native.js';
import { InvalidArgumentError, toStoreError } from './errors.js';
import type { MemoryBudget } from './memory-budget.js';
import { encodeChangelogEntry } from './changelog-entry.js';
import { PackedReader } from './packed-reads.js';

/** On-disk layout, as named by the `ss-backend` setting. */
export type Backend = 'pebbledb' | 'rocksdb';

/** A block height: a non-negative integer, as a bigint above 2^53 - 1. */
export type Version = number | bigint;

/** Options of one store. */
export interface MvccStoreOptions {
  /** Layout on disk; default `pebbledb`. */
  backend?: Backend;
  /** Blocks that may wait between changelog and DB (`ss-async-write-buffer`); <= 0 = acknowledge after apply. Default 100. */
  asyncWriteBuffer?: number;
  /** Changelog entries kept after apply; default max(1000, asyncWriteBuffer + 1). */
  changelogKeepEntries?: number;
  /** RocksDB block cache size in bytes when there is no memoryBudget; default 512 MiB. */
  blockCacheBytes?: number;
  /** The process's shared block cache and memtable limit (replaces blockCacheBytes). */
  memoryBudget?: MemoryBudget;
  /** Collect RocksDB statistics (write amplification figures); default true. */
  statistics?: boolean;
  /** Create the store when the directory holds none; default true (false for tools). */
  createIfMissing?: boolean;
  /** Open without changing anything on disk; writes throw NotSupportedError. */
  readOnly?: boolean;
  /** Leave the changelog alone until recover() (checks that run before recovery). */
  deferRecovery?: boolean;
  /** Stores whose changesets are logged with each block but not applied here. */
  logOnlyStores?: string[];
}

/** One key change: `value: null` deletes the key. */
export interface KVPair {
  key: Uint8Array;
  value: Uint8Array | null;
}

/** The changes of one module store in one block. */
export interface NamedChangeset {
  name: string;
  pairs: readonly KVPair[];
}

/** One item of a bulk import. */
export interface ImportItem {
  store: string;
  key: Uint8Array;
  value: Uint8Array;
}

/** One stored version of a key, as seen by {@link MvccStore.rawEntries}. */
export interface RawEntry {
  store: string;
  key: Buffer;
  value: Buffer;
  version: Version;
}

/** Range and direction of an iterator; `start` is inclusive, `end` exclusive. */
export interface IteratorOptions {
  start?: Uint8Array;
  end?: Uint8Array;
  reverse?: boolean;
}

/** Result of a prune pass. */
export interface PruneResult {
  versionsDeleted: number;
}

/** Store statistics for operators and benchmarks. */
export type StoreStats = NativeStats;

const ITERATOR_BATCH = 256;
const SCRATCH_BYTES = 64 * 1024;

/** Iterates key/value pairs (store prefix stripped) of one store at one version. */
export class MvccIterator implements IterableIterator<[Buffer, Buffer]> {
  #native: NativeIterator | undefined;
  #batch: Array<Buffer | string | number | bigint> = [];
  #pos = 0;

  /** @internal */
  constructor(nativeIterator: NativeIterator) {
    this.#native = nativeIterator;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<[Buffer, Buffer]> {
    if (this.#pos >= this.#batch.length && !this.#refill()) return { done: true, value: undefined };
    const key = this.#batch[this.#pos++] as Buffer;
    const value = this.#batch[this.#pos++] as Buffer;
    return { done: false, value: [key, value] };
  }

  /** Ends iteration early (also called by `break` in a for-of loop). */
  return(): IteratorResult<[Buffer, Buffer]> {
    this.close();
    return { done: true, value: undefined };
  }

  /** Releases the native iterator. */
  close(): void {
    this.#native?.close();
    this.#native = undefined;
    this.#batch = [];
  }

  #refill(): boolean {
    if (!this.#native) return false;
    try {
      this.#batch = this.#native.nextBatch(ITERATOR_BATCH);
    } catch (error) {
      throw toStoreError(error);
    }
    this.#pos = 0;
    if (this.#batch.length === 0) this.close();
    return this.#batch.length > 0;
  }
}

let nativeOfStore: (store: StateStore) => NativeStore;

/** The addon object behind `store`; for this folder only (index.ts does not export it). */
export function nativeOf(store: StateStore): NativeStore {
  return nativeOfStore(store);
}

/** A state store in one directory (see the subclasses MvccStore and EvmStateStore). */
export class StateStore {
  readonly dir: string;
  readonly backend: Backend;
  #native: NativeStore;
  /** get() values arrive here; larger ones come as their own Buffer. */
  #scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  readonly #reads = new PackedReader();

  protected constructor(dir: string, backend: Backend, nativeStore: NativeStore) {
    this.dir = dir;
    this.backend = backend;
    this.#native = nativeStore;
    this.#native.setScratch(this.#scratch);
  }

  /** Opens a store of `kind` through the addon, translating its errors. */
  protected static async openNative(kind: 'mvcc' | 'evm', dir: string, options: NativeStoreOptions): Promise<NativeStore> {
    try {
      return await native.NativeStateStore.open(kind, dir, options);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** The addon object, for subclasses. */
  protected get nativeStore(): NativeStore {
    return this.#native;
  }

  static {
    nativeOfStore = (store) => store.#native;
  }

  /**
   * A token with which another thread of this process reads this store
   * ({@link BorrowedStateStore.attach}); withdrawn when this store closes.
   */
  share(): number {
    return this.call(() => this.#native.share());
  }

  /** Replays the changelog(s) and starts the writer, for stores opened with deferRecovery. */
  async recover(): Promise<void> {
    try {
      await this.#native.recover();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Logs then applies one block's changesets at `version` (0 is stored as 1); resolves once durable. */
  async applyChangesets(version: Version, changesets: readonly NamedChangeset[]): Promise<void> {
    await this.applyEncoded(encodeChangelogEntry(version, changesets));
  }

  /** {@link applyChangesets} for a block already encoded with encodeChangelogEntry. */
  async applyEncoded(entry: Buffer): Promise<void> {
    try {
      await this.#native.apply(entry);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Resolves once every write submitted before it has been applied to the DB. */
  async drain(): Promise<void> {
    try {
      await this.#native.drain();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Newest value of `key` at or below `version`; undefined when absent or below the earliest version. */
  get(store: string, version: Version, key: Uint8Array): Buffer | undefined {
    let found: number | Buffer;
    try {
      found = this.#native.get(store, version, key);
    } catch (error) {
      throw toStoreError(error);
    }
    if (typeof found !== 'number') return found;
    if (found < 0) return undefined;
    const value = Buffer.allocUnsafe(found);
    this.#scratch.copy(value, 0, 0, found);
    return value;
  }

  /** Whether `key` has a value at `version`. */
  has(store: string, version: Version, key: Uint8Array): boolean {
    try {
      return this.#native.has(store, version, key);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** {@link get} for many keys at one version, in one native call. */
  getMany(store: string, version: Version, keys: readonly Uint8Array[]): Array<Buffer | undefined> {
    try {
      return this.#reads.read(keys, (packed, lengths, slots) => this.#native.getMany(store, version, packed, lengths, slots));
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Iterates the newest visible value of each key of `store` in [start, end) at `version`. */
  iterator(store: string, version: Version, options: IteratorOptions = {}): MvccIterator {
    try {
      return new MvccIterator(
        this.#native.iterator(store, version, options.start ?? null, options.end ?? null, options.reverse ?? false),
      );
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Latest applied version (0 for an empty store). */
  latestVersion(): Version {
    return this.call(() => this.#native.latestVersion());
  }

  /** Earliest readable version; reads below it find nothing. */
  earliestVersion(): Version {
    return this.call(() => this.#native.earliestVersion());
  }

  /** Raises the latest version marker (never lowers it). */
  setLatestVersion(version: Version): void {
    this.call(() => this.#native.setLatestVersion(version));
  }

  /** Raises the earliest version marker (never lowers it). */
  setEarliestVersion(version: Version): void {
    this.call(() => this.#native.setEarliestVersion(version));
  }

  /** Deletes every version at or below `version` except each key's newest; earliest becomes version + 1. */
  async prune(version: Version): Promise<PruneResult> {
    try {
      return await this.#native.prune(version);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * Removes every version above `version` — data, changelog entries and the latest marker — so
   * the store goes on as if they never happened (`stratad rollback`). Drains first. Throws
   * InvalidArgumentError below the earliest version (pruned history cannot come back).
   */
  async rollback(version: Version): Promise<void> {
    try {
      await this.#native.rollback(version);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Writes `items` at one version, bypassing the changelog (state sync); raises latest. */
  async import(version: Version, items: Iterable<ImportItem> | AsyncIterable<ImportItem>, chunk = 10_000): Promise<void> {
    let batch: ImportItem[] = [];
    try {
      for await (const item of items) {
        batch.push(item);
        if (batch.length >= chunk) {
          await this.#native.import(version, batch);
          batch = [];
        }
      }
      await this.#native.import(version, batch);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * Writes the leaves of the verified snapshot stream at `path` at `version`, as a restore
   * does: each store's leaves under its name, FlatKV rows as the logical keys they stand for,
   * the `evm` store's into `evm` when the split is on and into this store otherwise. Parsed
   * and written off the event loop; resolves with the number of items written.
   */
  async importSnapshotLeaves(version: Version, path: string, evm?: StateStore): Promise<number> {
    try {
      return await this.#native.importSnapshotLeaves(version, path, evm === undefined ? undefined : nativeOf(evm));
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** RocksDB and changelog statistics. */
  stats(): StoreStats {
    return this.call(() => this.#native.stats());
  }

  /** Drains pending writes, stops the writer and closes the DB; later calls throw StoreClosedError. */
  async close(): Promise<void> {
    try {
      await this.#native.close();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Runs a synchronous addon call, translating its errors. */
  protected call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

/**
 * A state store another thread of this process owns, read through the token its share()
 * returned. Only reads are meant for it; closing it lets go without closing the store, and
 * once the owner closes, its reads throw StoreClosedError.
 */
export class BorrowedStateStore extends StateStore {
  /** Borrows the store filed under `token`, whose layout is `backend`. */
  static attach(token: number, backend: Backend): BorrowedStateStore {
    let borrowed: NativeStore;
    try {
      borrowed = native.NativeStateStore.attach(token);
    } catch (error) {
      throw toStoreError(error);
    }
    return new BorrowedStateStore(`shared state store ${token}`, backend, borrowed);
  }
}
