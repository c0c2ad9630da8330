/**
 * Loads the native addon and describes its raw shape. Internal to src/store: nothing
 * outside this folder sees these objects, only the typed classes built on them.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlainKvOptions } from './plain-kv.js';
import type { CommitStoreOptions } from './sc/commit-store.js';
import type { DumpedTree } from './sc/dump-iavl.js';
import type { SnapshotRepair } from './sc/repair-snapshots.js';
import type { MvccStoreOptions } from './state-store.js';

/** Options as the addon reads them: the store options, plus the EVM SS sub-DB split. */
/** What a memory budget holds right now and can hold, in bytes. */
export interface MemoryBudgetUsage {
  blockCacheBytes: number;
  blockCachePinnedBytes: number;
  memtableBytes: number;
  blockCacheCapacity: number;
  writeBufferCapacity: number;
}

/** A RocksDB block cache and memtable limit that the stores opened with it share. */
export interface NativeMemoryBudget {
  usage(): MemoryBudgetUsage;
}

export type NativeStoreOptions = MvccStoreOptions & { separateDbs?: boolean };

/** Statistics as the addon reports them. */
export interface NativeStats {
  logicalBytesWritten: number;
  flushBytesWritten: number;
  compactionBytesWritten: number;
  compactionKeysDropped: number;
  pendingWrites: number;
  changelogFirstIndex: number;
  changelogLastIndex: number;
}

/** The addon's iterator: flat batches, empty at the end. */
export interface NativeIterator {
  nextBatch(max: number): Array<Buffer | string | number | bigint>;
  close(): void;
}

/** The addon's store object. */
export interface NativeStore {
  /** The value's length in the scratch buffer, -1 when absent, or a Buffer when larger. */
  get(store: string, version: number | bigint, key: Uint8Array): number | Buffer;
  /** The buffer get() copies values into. */
  setScratch(buffer: Buffer): void;
  has(store: string, version: number | bigint, key: Uint8Array): boolean;
  /** Values found, packed; `slots[2i]`, `slots[2i+1]` are key i's offset and length (-1 = absent). */
  getMany(store: string, version: number | bigint, packedKeys: Uint8Array, keyLengths: Int32Array, slots: Int32Array): Buffer;
  /** Logs then applies one encoded changelog entry (see changelog-entry.ts). */
  apply(entry: Uint8Array): Promise<void>;
  drain(): Promise<void>;
  recover(): Promise<void>;
  /** EVM SS only: applies the "evm" changesets of a whole block's entry. */
  applyBlock(entry: Uint8Array): Promise<void>;
  /** EVM SS only: catches up from the Cosmos SS changelog. */
  catchUpFrom(cosmos: NativeStore): Promise<void>;
  latestVersion(): number | bigint;
  earliestVersion(): number | bigint;
  setLatestVersion(version: number | bigint): void;
  setEarliestVersion(version: number | bigint): void;
  prune(version: number | bigint): Promise<{ versionsDeleted: number }>;
  /** Removes every version above `version`: data, changelog entries, the latest marker. */
  rollback(version: number | bigint): Promise<void>;
  import(
    version: number | bigint,
    items: ReadonlyArray<{ store: string; key: Uint8Array; value: Uint8Array }>,
  ): Promise<void>;
  /**
   * Writes the leaves of a verified snapshot stream at `version`: every item into this store,
   * but the `evm` store's into `evm` when given. Resolves with the items written.
   */
  importSnapshotLeaves(version: number | bigint, path: string, evm?: NativeStore): Promise<number>;
  compact(): Promise<void>;
  /** MVCC stores only: resolves once no flush or compaction is running or pending. */
  waitForCompactions(): Promise<void>;
  /** MVCC stores only: version of the oldest changelog entry, undefined if none. */
  firstLoggedVersion(): number | bigint | undefined;
  stats(): NativeStats;
  iterator(
    store: string,
    version: number | bigint,
    start: Uint8Array | null,
    end: Uint8Array | null,
    reverse: boolean,
  ): NativeIterator;
  rawIterator(): NativeIterator;
  /** A token another thread of this process passes to attach() to read this store. */
  share(): number;
  close(): Promise<void>;
}

/** Options of the addon's commit store: the SC options, plus whether to create missing directories. */
export type NativeCommitOptions = CommitStoreOptions & { createIfMissing?: boolean };

/** A commit as the addon reports it. */
export interface NativeCommitResult {
  version: number;
  appHash: Buffer;
  storeInfos: Array<{ name: string; version: number; hash: Buffer }>;
}

/** What dump-iavl wrote for one module, as the addon reports it. */
export type NativeDumpedTree = DumpedTree;
export type NativeSnapshotRepair = SnapshotRepair;

/** The addon's commit store object (memiavl + FlatKV). */
export interface NativeCommitStore {
  apply(entry: Uint8Array): void;
  working(): Promise<NativeCommitResult>;
  commit(): Promise<NativeCommitResult>;
  last(): NativeCommitResult;
  get(store: string, key: Uint8Array): Buffer | undefined;
  /** Values of many keys of one store (see packed-reads.ts). */
  getMany(store: string, packedKeys: Uint8Array, keyLengths: Int32Array, slots: Int32Array): Buffer;
  /** Alternating keys and values. */
  range(store: string, start: Uint8Array | null, end: Uint8Array | null, ascending: boolean, limit: number): Buffer[];
  rollback(target: number): Promise<NativeCommitResult>;
  snapshotVersions(): number[];
  waitForSnapshot(): Promise<void>;
  snapshotStats(): { bytes: number; seconds: number };
  treeMemory(): Record<string, number>;
  exportSnapshot(path: string): Promise<NativeSnapshotStats>;
  close(): Promise<void>;
}

/** What a state-sync export or import moved. */
export interface NativeSnapshotStats {
  version: number;
  items: number;
  bytes: number;
}

/** The addon's plain (unversioned) KV store object. */
export interface NativePlainKv {
  get(key: Uint8Array): Buffer | undefined;
  getMany(keys: Uint8Array[]): Array<Buffer | undefined>;
  write(keys: Uint8Array[], values: Array<Uint8Array | null>, sync: boolean): Promise<void>;
  /** write's ops from one buffer in PackedKvOps' layout. */
  writePacked(packed: Uint8Array, sync: boolean): Promise<void>;
  range(start: Uint8Array | null, end: Uint8Array | null, reverse: boolean, limit: number): Buffer[];
  /** A token another thread of this process passes to attach() to read this store. */
  share(): number;
  close(): Promise<void>;
}

/** The addon's sender-recovery pool (see native/include/strata/sender_recovery.h). */
export interface NativeSenderRecovery {
  /** Recovers packed items (97 bytes each) on the pool; 21 bytes per item: status (1 = ok), address. */
  recover(items: Uint8Array): Promise<Buffer>;
  /** The same, on the calling thread. */
  recoverSync(items: Uint8Array): Buffer;
  /**
   * Recovers signed messages packed as recovery id (1) ‖ r ‖ s ‖ message ‖ raw, with a
   * message and a raw length per item in `lengths`; 53 bytes per item: status, address, keccak256(raw).
   */
  recoverMessages(packed: Uint8Array, lengths: Int32Array): Promise<Buffer>;
  readonly threads: number;
}

/** What glibc's malloc holds (native/include/strata/process_allocator.h). */
export interface MallocUsage {
  /** Bytes of the arenas' heaps. */
  arenaBytes: number;
  /** Bytes of large allocations malloc mmapped on their own. */
  mmappedBytes: number;
  /** Bytes allocated and not yet freed. */
  inUseBytes: number;
  /** Bytes free inside the arenas, still held by the process. */
  freeBytes: number;
}

interface NativeModule {
  /** Caps malloc's arenas unless MALLOC_ARENA_MAX is set; returns the cap in effect (0: glibc's default). */
  limitMallocArenas(max: number): number;
  mallocUsage(): MallocUsage;
  mallocArenas(): number;
  /** Returns free arena pages to the system on the libuv pool; resolves to the fall in resident bytes. */
  trimMalloc(): Promise<number>;
  /** keccak256 of each input packed in `packed` (input i is `lengths[i]` bytes), 32 bytes each. */
  keccak256Many(packed: Uint8Array, lengths: Uint32Array): Buffer;
  NativeMemoryBudget: new (sizes: { blockCacheBytes: number; writeBufferBytes: number }) => NativeMemoryBudget;
  /** A pool of `threads` native threads (0: one per core), joined when the object is collected. */
  NativeSenderRecovery: new (threads?: number) => NativeSenderRecovery;
  NativePlainKv: {
    open(dir: string, options: PlainKvOptions): Promise<NativePlainKv>;
    /** Borrows the store share() filed under `token`; closing the borrower leaves it open. */
    attach(token: number): NativePlainKv;
  };
  NativeStateStore: {
    open(kind: 'mvcc' | 'evm', dir: string, options: NativeStoreOptions): Promise<NativeStore>;
    /** Borrows the store share() filed under `token`; closing the borrower leaves it open. */
    attach(token: number): NativeStore;
  };
  NativeCommitStore: {
    open(memiavlDir: string, flatkvDir: string, options: NativeCommitOptions): Promise<NativeCommitStore>;
    dumpIavl(dir: string, outDir: string, height: number, modules: string[] | null): Promise<NativeDumpedTree[]>;
    repairSnapshots(dir: string): Promise<NativeSnapshotRepair>;
    importSnapshot(
      memiavlDir: string,
      flatkvDir: string,
      version: number,
      path: string,
      options: NativeCommitOptions,
    ): Promise<NativeSnapshotStats>;
  };
}

/** Finds build/Release/strata_native.node from src/store or dist/src/store. */
function findAddon(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'build', 'Release', 'strata_native.node');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(
    'the Strata native addon (build/Release/strata_native.node) is not built; run `bash scripts/setup.sh` first',
  );
}

/** The loaded addon. */
export const native: NativeModule = createRequire(import.meta.url)(findAddon()) as NativeModule;
