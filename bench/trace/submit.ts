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

/** Submits `txs` in order, calls `mine`, and resolves with every receipt in the same order. */
export async function submitAndMine(port: number, txs: readonly WorkloadTx[], mine: (client: RpcClient) => Promise<void> = async () => {}, timeoutMs = 120_000): Promise<MinedReceipt[]> {
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
      for (;;) {
        const receipt = await client.call<MinedReceipt | null>('eth_getTransactionReceipt', [hash]);
        if (receipt) {
          receipts.push(receipt);
          break;
        }
        if (performance.now() > deadline) throw new SubmitError(`${hash} was not mined within ${timeoutMs} ms`);
        await sleep(25);
      }
    }
    return receipts;
  } finally {
    client.close();
  }
}
