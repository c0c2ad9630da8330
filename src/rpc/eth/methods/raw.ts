/**
 * debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts, debug_getRawTransaction: the
 * bytes behind blocks, receipts and transactions. They read what the eth backend serves, so
 * they live beside the eth_ methods rather than with the tracing debug_ methods.
 */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { bytesHex } from '../hex.js';
import { parseBlockNumberOrHash, parseHash } from '../params.js';
import { encodeReceipt } from '../raw-receipt.js';
import { then, type EthMethodContext } from './context.js';

/** The four raw-data methods. */
export function rawMethods({ backend }: EthMethodContext): MethodTable {
  return {
    debug_getRawHeader: (params) => {
      expectParams(params, 1);
      return then(backend.rawHeader(parseBlockNumberOrHash(params[0], 0)), (raw) => {
        if (raw === null) throw RpcError.server('header not found');
        return bytesHex(raw);
      });
    },
    debug_getRawBlock: (params) => {
      expectParams(params, 1);
      return then(backend.rawBlock(parseBlockNumberOrHash(params[0], 0)), (raw) => {
        if (raw === null) throw RpcError.server('block not found');
        return bytesHex(raw);
      });
    },
    debug_getRawReceipts: (params) => {
      expectParams(params, 1);
      return then(backend.blockReceipts(parseBlockNumberOrHash(params[0], 0)), (receipts) => {
        if (receipts === null) throw RpcError.server('block not found');
        return receipts.map((receipt) => bytesHex(encodeReceipt(receipt)));
      });
    },
    debug_getRawTransaction: (params) => {
      expectParams(params, 1);
      return then(backend.rawTransaction(parseHash(params[0], 0)), (raw) => (raw === null ? null : bytesHex(raw)));
    },
  };
}
