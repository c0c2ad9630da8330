/**
 * How many malloc arenas the native side may spread over. glibc gives each thread that
 * allocates an arena of its own, up to eight per core; a node has dozens of such threads
 * (RocksDB's background jobs, memiavl's snapshot and hashing threads, libuv's pool, one V8
 * isolate per execution worker), and memory freed in one arena is not reused by the others,
 * so under steady load the process keeps taking memory it does not use.
 */
import { limitMallocArenas } from '../store/index.js';

/** Arenas the node's C heap may use; an operator's MALLOC_ARENA_MAX wins. */
export const MALLOC_ARENAS = 2;

/** Caps malloc's arenas for this process (before the stores and workers start their threads); returns the cap in effect. */
export function limitNativeArenas(): number {
  return limitMallocArenas(MALLOC_ARENAS);
}
