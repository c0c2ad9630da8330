/**
 * PlainKv: a typed wrapper over the native unversioned RocksDB store that holds the block
 * store, tx index, receipts and logs (`data/blockstore`). Errors are the store's typed errors.
 */
import { toStoreError } from './errors.js';
import type { MemoryBudget } from './memory-budget.js';
import { native, type NativePlainKv } from './native.js';
import type { PackedKvOps } from './packed-kv-ops.js';

/** How `PlainKv.open` treats the directory. */
export interface PlainKvOptions {
  /** Create the store when the directory is empty (default true). */
  createIfMissing?: boolean;
  /** Open without the write lock; writes fail (default false). */
  readOnly?: boolean;
  /** RocksDB block cache size (default 32 MiB, at least 1 MiB) when there is no memoryBudget. */
  blockCacheBytes?: number;
  /** The process's shared block cache and memtable limit (replaces blockCacheBytes). */
  memoryBudget?: MemoryBudget;
}

/** One operation of an atomic write: `value` null deletes the key. */
export interface PlainKvOp {
  key: Uint8Array;
  value: Uint8Array | null;
}

/** A key range [start, end); an absent bound is open. */
export interface PlainKvRange {
  start?: Uint8Array;
  end?: Uint8Array;
  reverse?: boolean;
  /** Most pairs returned (default and maximum 1,048,576). */
  limit?: number;
}

/** A key/value pair read from the store. */
export interface PlainKvEntry {
  key: Buffer;
  value: Buffer;
}

const MAX_RANGE_LIMIT = 1 << 20;

/** Runs a native call, rethrowing its error as the typed store error. */
function typed<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw toStoreError(error);
  }
}

/** Awaits a native promise, rethrowing its error as the typed store error. */
async function typedAsync<T>(promise: () => Promise<T>): Promise<T> {
  try {
    return await promise();
  } catch (error) {
    throw toStoreError(error);
  }
}

/** An open plain KV store. */
export class PlainKv {
  private constructor(
    private readonly handle: NativePlainKv,
    /** Directory the store lives in. */
    readonly dir: string,
  ) {}

  /** Opens (or creates) the store in `dir`. */
  static async open(dir: string, options: PlainKvOptions = {}): Promise<PlainKv> {
    const handle = await typedAsync(() => native.NativePlainKv.open(dir, options));
    return new PlainKv(handle, dir);
  }

  /**
   * Borrows the store another thread of this process shared under `token` (see share());
   * only reads are meant for it, and closing it leaves the store open.
   */
  static attach(token: number): PlainKv {
    return new PlainKv(typed(() => native.NativePlainKv.attach(token)), `shared store ${token}`);
  }

  /** A token with which another thread of this process reads this store (attach()); withdrawn on close. */
  share(): number {
    return typed(() => this.handle.share());
  }

  /** The value of `key`, or undefined when absent. */
  get(key: Uint8Array): Buffer | undefined {
    return typed(() => this.handle.get(key));
  }

  /** The values of `keys` in order; undefined where absent. */
  getMany(keys: readonly Uint8Array[]): Array<Buffer | undefined> {
    return typed(() => this.handle.getMany([...keys]));
  }

  /** Applies every op atomically; with `sync`, resolves only once the batch is on disk. */
  async write(ops: readonly PlainKvOp[], options: { sync: boolean }): Promise<void> {
    const keys = ops.map((op) => op.key);
    const values = ops.map((op) => op.value);
    await typedAsync(() => this.handle.write(keys, values, options.sync));
  }

  /** Applies `ops` atomically, as write does, handing them to the store in one buffer. */
  async writePacked(ops: PackedKvOps, options: { sync: boolean }): Promise<void> {
    const packed = ops.bytes();
    await typedAsync(() => this.handle.writePacked(packed, options.sync));
  }

  /** Pairs in `range`, in key order (descending when `reverse`). */
  range(range: PlainKvRange = {}): PlainKvEntry[] {
    const flat = typed(() =>
      this.handle.range(range.start ?? null, range.end ?? null, range.reverse ?? false, range.limit ?? MAX_RANGE_LIMIT),
    );
    const out: PlainKvEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ key: flat[i]!, value: flat[i + 1]! });
    return out;
  }

  /** Pairs whose key starts with `prefix`. */
  prefix(prefix: Uint8Array, options: { reverse?: boolean; limit?: number } = {}): PlainKvEntry[] {
    const end = prefixEnd(prefix);
    return this.range({ start: prefix, ...(end ? { end } : {}), ...options });
  }

  /** Flushes and closes the store; idempotent. */
  async close(): Promise<void> {
    await typedAsync(() => this.handle.close());
  }
}

/** The smallest key greater than every key starting with `prefix`; undefined if none (all 0xff). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}
