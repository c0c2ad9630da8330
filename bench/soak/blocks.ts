/**
 * Follows the chain head: polls `eth_blockNumber` on its own connection, fetches each new
 * block's transaction hashes, and records when every block was first seen. Arrival times, not
 * header timestamps (whole seconds), give the block intervals: what a client observes,
 * including any time the node's RPC could not answer.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RpcClient } from '../node/rpc-client.js';

const POLL_MS = 20;
const CALL_TIMEOUT_MS = 30_000;

/** What the watcher saw. */
export interface BlockLog {
  /**
   * Intervals between consecutive blocks, ms, with the time (performance.now()) the later block
   * was seen; a poll that finds k new blocks spreads its gap evenly over them.
   */
  intervals: Array<{ at: number; ms: number }>;
  /** Header timestamps (seconds) of the blocks seen, in order. */
  timestamps: number[];
  /** Blocks seen. */
  blocks: number;
  /** Watcher calls that failed (transport error, timeout, JSON-RPC error). */
  errors: number;
  firstError: string;
}

/** A running watcher; `stop` ends it and resolves with its log. */
export interface BlockWatcher {
  /** The inclusion time (performance.now()) of a transaction hash, once seen. */
  includedAt: (hash: string) => number | undefined;
  /** Recently included transaction hashes (the last few thousand), newest last. */
  recent: () => readonly string[];
  /** The latest height seen. */
  height: () => number;
  stop: () => Promise<BlockLog>;
}

const RECENT = 2_000;

/** Starts following blocks above the current head on `port`. */
export async function watchBlocks(port: number): Promise<BlockWatcher> {
  const client = new RpcClient(port, 1);
  const included = new Map<string, number>();
  const recent: string[] = [];
  const log: BlockLog = { intervals: [], timestamps: [], blocks: 0, errors: 0, firstError: '' };
  let height = Number(await client.call<string>('eth_blockNumber'));
  let lastArrival = Number.NaN;
  let stopping = false;

  const fail = (error: unknown) => {
    log.errors++;
    log.firstError ||= error instanceof Error ? error.message : String(error);
  };
  const call = <T>(method: string, params: unknown[]) =>
    Promise.race([
      client.call<T>(method, params),
      // Unref'd: a poll that did answer must not keep the process alive until its timer fires.
      sleep(CALL_TIMEOUT_MS, undefined, { ref: false }).then(() => {
        throw new Error(`${method}: no answer within ${CALL_TIMEOUT_MS} ms`);
      }),
    ]);

  const loop = (async () => {
    while (!stopping) {
      try {
        const latest = Number(await call<string>('eth_blockNumber', []));
        const now = performance.now();
        if (latest > height) {
          const k = latest - height;
          // The first block seen starts the clock; its gap to the head before the run is not an interval.
          if (!Number.isNaN(lastArrival)) for (let i = 0; i < k; i++) log.intervals.push({ at: now, ms: (now - lastArrival) / k });
          lastArrival = now;
          for (let h = height + 1; h <= latest; h++) {
            const block = await call<{ timestamp: string; transactions: string[] } | null>('eth_getBlockByNumber', [`0x${h.toString(16)}`, false]);
            if (!block) throw new Error(`block ${h} is missing after eth_blockNumber said ${latest}`);
            log.timestamps.push(Number(block.timestamp));
            log.blocks++;
            for (const hash of block.transactions) {
              included.set(hash, now);
              recent.push(hash);
            }
            if (recent.length > 2 * RECENT) recent.splice(0, recent.length - RECENT);
            height = h;
          }
        }
      } catch (error) {
        fail(error);
      }
      await sleep(POLL_MS);
    }
  })();

  return {
    includedAt: (hash) => included.get(hash),
    recent: () => recent,
    height: () => height,
    stop: async () => {
      stopping = true;
      await loop;
      client.close();
      return log;
    },
  };
}
