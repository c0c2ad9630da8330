/** Sending transactions and finding them (and their receipts) by hash. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { formatReceipt, formatTransaction } from '../format.js';
import { bytesHex } from '../hex.js';
import { parseData, parseHash } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** eth_sendRawTransaction, eth_getTransactionByHash, eth_getTransactionReceipt. */
export function transactionMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_sendRawTransaction: (params) => {
      expectParams(params, 1);
      const raw = parseData(params[0], 0);
      if (raw.length === 0) throw RpcError.server('typed transaction too short');
      return then(backend.sendRawTransaction(raw), bytesHex);
    },
    eth_getTransactionByHash: (params) => {
      expectParams(params, 1);
      return then(backend.transactionByHash(parseHash(params[0], 0)), (located) =>
        located === null ? null : formatTransaction(located.tx, located.position),
      );
    },
    eth_getTransactionReceipt: (params) => {
      expectParams(params, 1);
      return then(backend.receiptByHash(parseHash(params[0], 0)), (receipt) => (receipt === null ? null : formatReceipt(receipt)));
    },
  };
}
