/**
 * The C heap under the storage core (glibc malloc): RocksDB, memiavl and the addon allocate
 * from it on many threads, and each thread that allocates may get an arena of its own.
 */
import { native, type MallocUsage } from './native.js';

export type { MallocUsage };

/** Caps malloc's arenas at `max` unless the environment sets MALLOC_ARENA_MAX; returns the cap in effect (0: glibc's default, eight per core). */
export function limitMallocArenas(max: number): number {
  return native.limitMallocArenas(max);
}

/** What malloc holds now, over every arena. */
export function mallocUsage(): MallocUsage {
  return native.mallocUsage();
}

/** Arenas malloc has made so far, the main one included. */
export function mallocArenas(): number {
  return native.mallocArenas();
}

/** Hands free arena pages back to the system off the calling thread; resolves to how far the resident size fell, in bytes. */
export function trimMalloc(): Promise<number> {
  return native.trimMalloc();
}
