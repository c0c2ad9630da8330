/**
 * Sending a workload to a node in nonce order and waiting for it to be mined. Submission is
 * sequential on one connection: the workload comes from one sender, and a node refuses a nonce
 * gap, so order must hold. `mine` is called once everything is submitted, or after each
 * transaction with `oneAtATime` (Anvil without mining needs an `evm_mine`; a node producing
 * blocks on its own needs nothing).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RpcClient } from '../node/rpc-client.js';
import type { WorkloadTx } from './workload.js';

/** The receipt fields the trace comparison and the bench read. */
export interface MinedReceipt {
  transactionHash: string;
  blockNumber: string;
  transactionIndex: string;
  status: string;
  gasUsed: string;
  contractAddress: string | null;
  logs: Array<{ logIndex: string }>;
}

/** Thrown when a node refuses a transaction or does not mine it in time. */
export class SubmitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubmitError';
  }
}

/** How long `submitAndMine` waits for every receipt by default. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** How `submitAndMine` gets the transactions into blocks. */
export interface MineOptions {
  /** Called once everything is submitted (default: nothing, the node mines on its own). */
  mine?: (client: RpcClient) => Promise<void>;
  /**
   * Called whenever a receipt is still missing after `nudgeAfterMs`, after the transaction was
   * sent again (a node that dropped it takes it back; one that holds it refuses the copy, which
   * is ignored). Anvil's automine can leave a ready transaction in its pool
   * (foundry-rs/foundry#10122); an `evm_mine` flushes it.
   */
  nudge?: (client: RpcClient) => Promise<void>;
  nudgeAfterMs?: number;
  /**
   * Waits for each receipt before sending the next transaction, so the node never holds more
   * than one pending: Anvil's automine loses track of ready transactions when many arrive at
   * once (foundry-rs/foundry#10122).
   */
  oneAtATime?: boolean;
  timeoutMs?: number;
}

/** Submits `txs` in order, calls `mine`, and resolves with every receipt in the same order. */
export async function submitAndMine(port: number, txs: readonly WorkloadTx[], options: MineOptions = {}): Promise<MinedReceipt[]> {
  const { mine = async () => {}, oneAtATime = false, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  const client = new RpcClient(port, 2);
  try {
    const deadline = performance.now() + timeoutMs;
    const receipts: MinedReceipt[] = [];
    if (oneAtATime) {
      for (const [index, tx] of txs.entries()) {
        const hash = await send(client, tx, index);
        await mine(client);
        receipts.push(await receiptOf(client, hash, tx, deadline, options));
      }
      return receipts;
    }
    const hashes: string[] = [];
    for (const [index, tx] of txs.entries()) hashes.push(await send(client, tx, index));
    await mine(client);
    for (const [index, hash] of hashes.entries()) receipts.push(await receiptOf(client, hash, txs[index]!, deadline, options));
    return receipts;
  } finally {
    client.close();
  }
}

/** Sends `tx` (the `index`th of the workload) and returns its hash, or throws a SubmitError naming it. */
async function send(client: RpcClient, tx: WorkloadTx, index: number): Promise<string> {
  try {
    return await client.call<string>('eth_sendRawTransaction', [tx.raw]);
  } catch (error) {
    throw new SubmitError(`${tx.kind} (#${index}) was refused: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Polls for `hash`'s receipt until `deadline`, sending it again and nudging the node while it is late. */
async function receiptOf(client: RpcClient, hash: string, tx: WorkloadTx, deadline: number, options: MineOptions): Promise<MinedReceipt> {
  const { nudge, nudgeAfterMs = 2_000, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  let nudgeAt = performance.now() + nudgeAfterMs;
  let nudges = 0;
  for (;;) {
    const receipt = await client.call<MinedReceipt | null>('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    const now = performance.now();
    if (now > deadline) throw new SubmitError(`${hash} was not mined within ${timeoutMs} ms${nudge ? ` (sent again and nudged ${nudges} times)` : ''}`);
    if (nudge && now > nudgeAt) {
      await client.call('eth_sendRawTransaction', [tx.raw]).catch(() => undefined);
      await nudge(client);
      nudges++;
      nudgeAt = now + nudgeAfterMs;
    }
    await sleep(25);
  }
}
