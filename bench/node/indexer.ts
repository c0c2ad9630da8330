/**
 * What indexers ask for: `eth_getLogs` over 1,000-block ranges of a busy contract, and
 * `eth_getBlockReceipts` of full blocks. The log history is built on its own pair of chains,
 * so that its 2,000 blocks exist without waiting 2,000 one-second blocks: a node producing a block
 * every few tens of milliseconds (restarted with 1 s blocks before it is measured), and Anvil
 * without automatic mining, given block for block the same Token transfers (of 0 tokens, which
 * emit a Transfer log from any sender), so both answer with the same logs. eth_getLogs is
 * asked over distinct 1,000-block windows sliding along that history (the same windows on
 * both sides), as an indexer walking a contract's history asks: the first query of a window
 * takes the uncached path, repeats of it the cached one, and the figure counts both.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadResult } from '../rpc/load.js';
import { runReads } from './reads.js';
import { RpcClient } from './rpc-client.js';
import { hex, signEip1559 } from './sign.js';

/** Blocks one eth_getLogs spans. */
export const LOG_RANGE_BLOCKS = 1000;
/** Blocks of the log history the windows slide over. */
export const LOG_HISTORY_BLOCKS = 2 * LOG_RANGE_BLOCKS;
/** Distinct windows queried (their starts spread evenly over the history). */
export const LOG_WINDOWS = 101;
const TRANSFER_SELECTOR = 'a9059cbb';

/** A funded account that sends the Token transfers. */
export interface LogSender {
  privateKey: string;
}

/** Thrown when the history cannot be built (a block does not come, a transaction is refused). */
export class HistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryError';
  }
}

/** Signs `transfer(sink, 0)` on the Token from `key` at `nonce`. */
function signZeroTransfer(key: Buffer, nonce: bigint, token: string, chainId: number): string {
  const data = Buffer.from(`${TRANSFER_SELECTOR}${'00'.repeat(12)}${'ab'.repeat(20)}${'00'.repeat(32)}`, 'hex');
  return hex(
    signEip1559(
      { chainId: BigInt(chainId), nonce, maxPriorityFeePerGas: 1_000_000_000n, maxFeePerGas: 100_000_000_000n, gasLimit: 60_000n, to: Buffer.from(token.slice(2), 'hex'), value: 0n, data },
      key,
    ),
  );
}

/**
 * Sends batches of `perBlock` Token transfers to an interval-mining node, each after the last
 * one is in a block, until LOG_HISTORY_BLOCKS blocks have passed since the first; returns the
 * range and how many transfers each of its blocks holds (a batch can straddle two blocks, and
 * some blocks come empty).
 */
export async function buildLogHistory(
  port: number,
  senders: readonly LogSender[],
  token: string,
  perBlock: number,
  chainId: number,
  timeoutMs: number,
): Promise<{ fromBlock: number; toBlock: number; txsPerBlock: number[] }> {
  const client = new RpcClient(port, perBlock);
  const keys = senders.map((s) => Buffer.from(s.privateKey.slice(2), 'hex'));
  const nonces = keys.map(() => 0n);
  const deadline = performance.now() + timeoutMs;
  try {
    let first: number | undefined;
    for (let b = 0; ; b++) {
      const batch: string[] = [];
      for (let i = 0; i < perBlock; i++) {
        const s = (b * perBlock + i) % keys.length;
        batch.push(signZeroTransfer(keys[s]!, nonces[s]!, token, chainId));
        nonces[s]! += 1n;
      }
      const hashes = await Promise.all(batch.map((raw) => client.call<string>('eth_sendRawTransaction', [raw])));
      let receipt: { blockNumber: string } | null = null;
      while (receipt === null) {
        if (performance.now() > deadline) throw new HistoryError(`the log history was not built in ${timeoutMs} ms`);
        receipt = await client.call<{ blockNumber: string } | null>('eth_getTransactionReceipt', [hashes[hashes.length - 1]]);
        if (receipt === null) await sleep(5);
      }
      const height = Number(receipt.blockNumber);
      first ??= Number((await client.call<{ blockNumber: string }>('eth_getTransactionReceipt', [hashes[0]])).blockNumber);
      if (height >= first + LOG_HISTORY_BLOCKS - 1) break;
    }
    const heights = Array.from({ length: LOG_HISTORY_BLOCKS }, (_, i) => first! + i);
    const counts = await Promise.all(heights.map((h) => client.call<string>('eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`])));
    return { fromBlock: first!, toBlock: first! + LOG_HISTORY_BLOCKS - 1, txsPerBlock: counts.map(Number) };
  } finally {
    client.close();
  }
}

/**
 * Builds the same history on Anvil with automatic mining off: block by block, the transfers
 * the node's block holds, then `evm_mine` (an empty block where the node's was empty).
 */
export async function mirrorLogHistory(
  port: number,
  senders: readonly LogSender[],
  token: string,
  txsPerBlock: readonly number[],
  chainId: number,
): Promise<{ fromBlock: number; toBlock: number }> {
  const client = new RpcClient(port, 8);
  const keys = senders.map((s) => Buffer.from(s.privateKey.slice(2), 'hex'));
  const nonces = keys.map(() => 0n);
  try {
    const fromBlock = Number(await client.call<string>('eth_blockNumber')) + 1;
    let next = 0;
    for (const count of txsPerBlock) {
      const batch: string[] = [];
      for (let i = 0; i < count; i++) {
        const s = next++ % keys.length;
        batch.push(signZeroTransfer(keys[s]!, nonces[s]!, token, chainId));
        nonces[s]! += 1n;
      }
      await Promise.all(batch.map((raw) => client.call<string>('eth_sendRawTransaction', [raw])));
      await client.call('evm_mine');
    }
    const toBlock = Number(await client.call<string>('eth_blockNumber'));
    if (toBlock !== fromBlock + txsPerBlock.length - 1) throw new HistoryError(`Anvil mined ${toBlock - fromBlock + 1} blocks, expected ${txsPerBlock.length}`);
    return { fromBlock, toBlock };
  } finally {
    client.close();
  }
}

/** The eth_getLogs body over `range` for the Token's logs. */
export function getLogsBody(token: string, range: { fromBlock: number; toBlock: number }): string {
  const q = (n: number) => `0x${n.toString(16)}`;
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ address: token, fromBlock: q(range.fromBlock), toBlock: q(range.toBlock) }] });
}

/**
 * LOG_WINDOWS distinct LOG_RANGE_BLOCKS-block windows of `history`, their starts spread evenly
 * from its first block to the last start that still fits; the same offsets on any history of
 * the same length, so node and Anvil are asked for the same blocks of the same transfers.
 */
export function logWindows(history: { fromBlock: number; toBlock: number }): Array<{ fromBlock: number; toBlock: number }> {
  const span = history.toBlock - history.fromBlock + 1 - LOG_RANGE_BLOCKS;
  if (span < 0) throw new HistoryError(`a history of ${history.toBlock - history.fromBlock + 1} blocks holds no ${LOG_RANGE_BLOCKS}-block window`);
  const starts = new Set(Array.from({ length: LOG_WINDOWS }, (_, i) => history.fromBlock + Math.round((span * i) / (LOG_WINDOWS - 1))));
  return [...starts].map((fromBlock) => ({ fromBlock, toBlock: fromBlock + LOG_RANGE_BLOCKS - 1 }));
}

/**
 * The `count` blocks on `port` holding the most transactions (the fullest transfer blocks),
 * with their transaction counts: on a quiet machine a transfer round fills blocks to about
 * 1,400 transfers, on a loaded one the submission rate caps them lower, and the counts say so.
 */
export async function fullestBlocks(port: number, count: number): Promise<{ height: number; txs: number }[]> {
  const client = new RpcClient(port, 8);
  try {
    const latest = Number(await client.call<string>('eth_blockNumber'));
    const heights = Array.from({ length: latest }, (_, i) => i + 1);
    const counts = await Promise.all(heights.map((h) => client.call<string | null>('eth_getBlockTransactionCountByNumber', [`0x${h.toString(16)}`])));
    return heights
      .map((height, i) => ({ height, txs: counts[i] === null ? 0 : Number(counts[i]) }))
      .filter((block) => block.txs > 0)
      .sort((a, b) => b.txs - a.txs)
      .slice(0, count);
  } finally {
    client.close();
  }
}

/** eth_getBlockReceipts bodies for `heights`, cycled by the load generator. */
export function blockReceiptsBodies(heights: readonly number[]): string[] {
  return heights.map((h) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockReceipts', params: [`0x${h.toString(16)}`] }));
}

/** Drives `bodies` at `connections` connections for `seconds`. */
export function runIndexerReads(port: number, bodies: readonly string[], connections: number, seconds: number): Promise<LoadResult> {
  return runReads(port, bodies, connections, seconds);
}
