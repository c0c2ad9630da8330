/**
 * The V8 heap settings `stratad start` makes before the node starts: how far a heap may grow,
 * and the young-generation flag kept to the main thread.
 *
 * By default V8 lets a heap grow to several times what survived its last full collection
 * before collecting again, so a node under steady load keeps taking memory for minutes
 * (hundreds of MiB over its threads) without holding more live data. A factor of 1.5 keeps the
 * process near its live size: measured by `bench:soak` (5 minutes at 300 requests/s) the RSS
 * grew 305 MiB after the first minute by default, 25 MiB with it, with block interval and RPC
 * latency unchanged. That flag is process-wide, so it covers the execution workers too.
 */
import { setFlagsFromString } from 'node:v8';

/** Heap growth allowed after a full collection, in percent of what survived it. */
export const HEAP_GROWING_PERCENT = 50;
const FLAG = '--heap-growing-percent';

/** Sets the heap growing factor for this process, unless Node.js was started with its own. */
export function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith(FLAG) || arg.startsWith('--heap_growing_percent'))) return;
  setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}

/**
 * Leaves the main thread's young-generation flag (`--max-semi-space-size`, which stratad's
 * launchers pass: cli/node-flags.ts) to the main thread. V8's flag overrides the limit a
 * worker asks for in `resourceLimits`, so without this each execution worker grew a 128 MiB
 * nursery too (bench:soak: worker heaps +276 MiB in 10 minutes). The main isolate was sized
 * when it was made and keeps the flag; isolates made afterwards use their own limits.
 */
export function confineYoungGenerationToMainThread(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
