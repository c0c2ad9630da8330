/**
 * Sending a workload to a node in nonce order and waiting for it to be mined. Submission is
 * sequential on one connection: the workload comes from one sender, and a node refuses a nonce
 * gap, so order must hold. `mine` is called once everything is submitted (Anvil without
 * mining needs an `evm_mine`; a node producing blocks on its own needs nothing).
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

/** How `submitAndMine` gets the transactions into blocks. */
export interface MineOptions {
  /** Called once everything is submitted (default: nothing, the node mines on its own). */
  mine?: (client: RpcClient) => Promise<void>;
  /**
   * Called whenever a receipt is still missing after `nudgeAfterMs`. Anvil's automine can leave
   * a ready transaction in its pool (foundry-rs/foundry#10122); an `evm_mine` flushes it.
   */
  nudge?: (client: RpcClient) => Promise<void>;
  nudgeAfterMs?: number;
  timeoutMs?: number;
}

/** Submits `txs` in order, calls `mine`, and resolves with every receipt in the same order. */
export async function submitAndMine(port: number, txs: readonly WorkloadTx[], options: MineOptions = {}): Promise<MinedReceipt[]> {
  const { mine = async () => {}, nudge, nudgeAfterMs = 2_000, timeoutMs = 120_000 } = options;
  const client = new RpcClient(port, 2);
  try {
    const hashes: string[] = [];
    for (const tx of txs) {
      try {
        hashes.push(await client.call<string>('eth_sendRawTransaction', [tx.raw]));
      } catch (error) {
        throw new SubmitError(`${tx.kind} (#${hashes.length}) was refused: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    await mine(client);
    const deadline = performance.now() + timeoutMs;
    const receipts: MinedReceipt[] = [];
    for (const hash of hashes) {
      let nudgeAt = performance.now() + nudgeAfterMs;
      for (;;) {
        const receipt = await client.call<MinedReceipt | null>('eth_getTransactionReceipt', [hash]);
        if (receipt) {
          receipts.push(receipt);
          break;
        }
        const now = performance.now();
        if (now > deadline) throw new SubmitError(`${hash} was not mined within ${timeoutMs} ms`);
        if (nudge && now > nudgeAt) {
          await nudge(client);
          nudgeAt = now + nudgeAfterMs;
        }
        await sleep(25);
      }
    }
    return receipts;
  } finally {
    client.close();
  }
}
