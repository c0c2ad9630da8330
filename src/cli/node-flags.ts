/**
 * The Node.js runtime flags `stratad` runs with. Every launcher passes them: the `stratad`
 * shebang, docker/stratad, scripts/start.sh and the benchmarks' node processes;
 * test/scripts/node-flags.test.ts checks that each one does.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * A 64 MiB young-generation semi-space (V8's default is 16 MiB). Executing a block makes tens
 * of MB of short-lived objects (decoded transactions, accounts, overlay entries); in the
 * default space most of them are still alive at the next scavenge and get copied, and the
 * scavenges took about a sixth of a follower's main thread. Flags must be given at start: V8
 * sizes its heap before any script runs.
 */
export const STRATAD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/**
 * Leaves STRATAD_NODE_FLAGS to the main thread. V8's flag overrides the young-generation
 * limit a worker asks for in `resourceLimits`, so without this each execution worker grew a
 * 128 MiB nursery too (bench:soak: worker heaps +276 MiB in 10 minutes). The main isolate was
 * sized when it was made and keeps the flag; isolates made afterwards use their own limits.
 */
export function confineNodeFlagsToMainThread(): void {
  setFlagsFromString('--max-semi-space-size=0');
}
