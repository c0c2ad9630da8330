/** txpool_status, txpool_content, txpool_contentFrom: the mempool in geth's shape. */
import { checksumAddress } from '../../../util/keccak.js';
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import type { EthTransaction } from '../backend.js';
import { formatTransaction, type JsonObject } from '../format.js';
import { quantity } from '../hex.js';
import { parseAddress } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** sender (EIP-55, as geth's map keys print) → nonce (decimal) → pending transaction object. */
function bySender(txs: readonly EthTransaction[]): Record<string, Record<string, JsonObject>> {
  const out: Record<string, Record<string, JsonObject>> = {};
  for (const tx of txs) {
    const sender = (out[checksumAddress(tx.from)] ??= {});
    sender[tx.nonce.toString(10)] = formatTransaction(tx, null);
  }
  return out;
}

/** nonce (decimal) → pending transaction object, for one sender. */
function byNonce(txs: readonly EthTransaction[], from: Uint8Array): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const tx of txs) {
    if (Buffer.compare(tx.from, from) === 0) out[tx.nonce.toString(10)] = formatTransaction(tx, null);
  }
  return out;
}

/** The txpool_ namespace. */
export function txpoolMethods({ backend }: EthMethodContext): MethodTable {
  return {
    txpool_status: (params) => {
      expectParams(params, 0);
      const status = backend.txPoolStatus();
      return { pending: quantity(status.pending), queued: quantity(status.queued) };
    },
    txpool_content: (params) => {
      expectParams(params, 0);
      return then(backend.txPool(), (pool) => ({ pending: bySender(pool.pending), queued: bySender(pool.queued) }));
    },
    txpool_contentFrom: (params) => {
      expectParams(params, 1);
      const from = parseAddress(params[0], 0);
      return then(backend.txPool(), (pool) => ({ pending: byNonce(pool.pending, from), queued: byNonce(pool.queued, from) }));
    },
  };
}
