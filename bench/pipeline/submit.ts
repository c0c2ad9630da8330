/**
 * Feeding the node as fast as it accepts: raw transactions in JSON-RPC batches of
 * `eth_sendRawTransaction` over several keep-alive connections, each connection sending its
 * next batch as soon as the previous one is answered; and following inclusion cheaply
 * (eth_blockNumber, then each new block's transaction count).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RpcClient } from '../node/rpc-client.js';

/** A submission that the node refused, or a batch it did not answer as JSON-RPC. */
export class SubmissionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubmissionError';
  }
}

/**
 * Submits `raws` (0x hex) in order, `batchSize` per request over `connections` connections;
 * resolves when every batch is answered. Throws on the first refused transaction: every one of
 * them is valid, so a refusal means the run measures something else.
 */
export async function submitBatches(port: number, raws: readonly string[], batchSize: number, connections: number): Promise<void> {
  const client = new RpcClient(port, connections);
  let next = 0;
  let id = 0;
  const worker = async (): Promise<void> => {
    while (next < raws.length) {
      const batch = raws.slice(next, next + batchSize);
      next += batch.length;
      const body = JSON.stringify(batch.map((raw) => ({ jsonrpc: '2.0', id: ++id, method: 'eth_sendRawTransaction', params: [raw] })));
      const { status, text } = await client.post(body);
      if (status !== 200) throw new SubmissionError(`HTTP ${status}: ${text.slice(0, 300)}`);
      const replies = JSON.parse(text) as Array<{ error?: { message?: string } }>;
      if (!Array.isArray(replies) || replies.length !== batch.length) throw new SubmissionError(`a batch of ${batch.length} got ${text.slice(0, 300)}`);
      const refused = replies.find((r) => r.error);
      if (refused) throw new SubmissionError(`a transfer was refused: ${refused.error?.message ?? JSON.stringify(refused.error)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    client.close();
  }
}

/** When the last of the expected transactions was seen in a block, and the blocks that held them. */
export interface Inclusion {
  /** performance.now() when the block completing `expected` was first seen. */
  at: number;
  blocksWithTxs: number;
  lastHeight: number;
}

/** Polls from `fromBlock` until `expected` transactions are in blocks; throws after `timeoutMs`. */
export async function followInclusion(port: number, fromBlock: number, expected: number, timeoutMs: number, pollMs = 5): Promise<Inclusion> {
  const poller = new RpcClient(port, 1);
  const deadline = performance.now() + timeoutMs;
  let seen = fromBlock;
  let included = 0;
  let blocksWithTxs = 0;
  try {
    while (performance.now() < deadline) {
      const latest = Number(await poller.call<string>('eth_blockNumber'));
      for (let h = seen + 1; h <= latest; h++) {
        const count = Number(await poller.call<string>('eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`]));
        if (count > 0) blocksWithTxs++;
        included += count;
      }
      seen = latest;
      if (included >= expected) return { at: performance.now(), blocksWithTxs, lastHeight: latest };
      await sleep(pollMs);
    }
    throw new SubmissionError(`only ${included} of ${expected} transfers were in blocks after ${timeoutMs} ms`);
  } finally {
    poller.close();
  }
}
