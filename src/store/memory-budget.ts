/**
 * The node's RocksDB memory as two numbers: one block cache and one memtable limit shared by
 * every store it opens (Cosmos SS, EVM SS, FlatKV, block store), however many databases those are.
 */
import { toStoreError } from './errors.js';
import { native, type MemoryBudgetUsage, type NativeMemoryBudget } from './native.js';

export type { MemoryBudgetUsage };

/** A shared block cache and memtable limit; every store opened with it as `memoryBudget` uses it. */
export type MemoryBudget = NativeMemoryBudget;

/** Sizes of a memory budget, bytes (each at least 1 MiB). */
export interface MemoryBudgetSizes {
  blockCacheBytes: number;
  writeBufferBytes: number;
}

/** A new budget of `sizes`. */
export function createMemoryBudget(sizes: MemoryBudgetSizes): MemoryBudget {
  try {
    return new native.NativeMemoryBudget(sizes);
  } catch (error) {
    throw toStoreError(error);
  }
}
