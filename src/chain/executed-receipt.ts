/** The block store's receipt of an executed transaction, the same on the validator and on a follower. */
import type { Log } from './block.js';
import type { Receipt } from './block-store.js';
import type { ExecutedTx } from '../evm/executor.js';

/** The logs of every receipt without any, shared: stored receipts are never changed. */
const NO_LOGS: readonly Log[] = Object.freeze([]);

/** Converts the executor's receipt of `tx` to the block store's. */
export function storedReceipt(tx: ExecutedTx): Receipt {
  return {
    status: tx.receipt.status,
    txType: tx.receipt.type,
    from: tx.from,
    to: tx.to ?? null,
    contractAddress: tx.receipt.contractAddress ?? null,
    gasUsed: tx.receipt.gasUsed,
    cumulativeGasUsed: tx.receipt.cumulativeGasUsed,
    effectiveGasPrice: tx.receipt.effectiveGasPrice,
    logs: tx.receipt.logs.length === 0 ? NO_LOGS : tx.receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
  };
}
