/**
 * The Node.js runtime flags `stratad` runs with. Every launcher passes them: the `stratad`
 * shebang, docker/stratad, scripts/start.sh and the benchmarks' node processes;
 * test/scripts/node-flags.test.ts checks that each one does.
 */

/**
 * A 64 MiB young-generation semi-space (V8's default is 16 MiB). Executing a block makes tens
 * of MB of short-lived objects (decoded transactions, accounts, overlay entries); in the
 * default space most of them are still alive at the next scavenge and get copied, and the
 * scavenges took about a sixth of a follower's main thread. Flags must be given at start: V8
 * sizes its heap before any script runs. `stratad start` keeps the flag from the execution
 * workers (node/heap-growth.ts).
 */
export const STRATAD_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
