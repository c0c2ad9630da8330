/** Blocks, their transaction counts, their transactions by index, their receipts and (absent) uncles. */
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import type { BlockId } from '../backend.js';
import { formatBlock, formatReceipt, formatTransaction } from '../format.js';
import { quantity } from '../hex.js';
import { parseBlockNumber, parseBlockNumberOrHash, parseBool, parseHash, parseIndex } from '../params.js';
import { then, type EthMethodContext } from './context.js';

function countOrNull(count: number | null): string | null {
  return count === null ? null : quantity(count);
}

/**
 * eth_blockNumber, eth_getBlockByNumber/ByHash, eth_getBlockTransactionCountByNumber/ByHash,
 * eth_getTransactionByBlockHashAndIndex/ByBlockNumberAndIndex, eth_getBlockReceipts,
 * eth_getUncleCountByBlockHash/ByBlockNumber.
 */
export function blockMethods({ backend }: EthMethodContext): MethodTable {
  const transactionAt = (id: BlockId, index: number) =>
    then(backend.transactionInBlock(id, index), (located) => (located === null ? null : formatTransaction(located.tx, located.position)));
  // This chain has no uncles: a known block has none, an unknown one is null (geth's answer).
  const uncleCount = (id: BlockId) => then(backend.heightOf(id), (height) => (height === null ? null : '0x0'));
  return {
    eth_blockNumber: (params) => (expectParams(params, 0), quantity(backend.heights().latest)),
    eth_getBlockByNumber: (params) => {
      expectParams(params, 2);
      const at = parseBlockNumber(params[0], 0);
      const full = parseBool(params[1], 1);
      return then(backend.block(at), (block) => (block === null ? null : formatBlock(block, full)));
    },
    eth_getBlockByHash: (params) => {
      expectParams(params, 2);
      const hash = parseHash(params[0], 0);
      const full = parseBool(params[1], 1);
      return then(backend.block({ kind: 'hash', hash }), (block) => (block === null ? null : formatBlock(block, full)));
    },
    eth_getBlockTransactionCountByNumber: (params) => {
      expectParams(params, 1);
      return then(backend.blockTransactionCount(parseBlockNumber(params[0], 0)), countOrNull);
    },
    eth_getBlockTransactionCountByHash: (params) => {
      expectParams(params, 1);
      return then(backend.blockTransactionCount({ kind: 'hash', hash: parseHash(params[0], 0) }), countOrNull);
    },
    eth_getTransactionByBlockHashAndIndex: (params) => {
      expectParams(params, 2);
      const hash = parseHash(params[0], 0);
      return transactionAt({ kind: 'hash', hash }, parseIndex(params[1], 1));
    },
    eth_getTransactionByBlockNumberAndIndex: (params) => {
      expectParams(params, 2);
      const at = parseBlockNumber(params[0], 0);
      return transactionAt(at, parseIndex(params[1], 1));
    },
    eth_getBlockReceipts: (params) => {
      expectParams(params, 1);
      return then(backend.blockReceipts(parseBlockNumberOrHash(params[0], 0)), (receipts) => (receipts === null ? null : receipts.map(formatReceipt)));
    },
    eth_getUncleCountByBlockHash: (params) => (expectParams(params, 1), uncleCount({ kind: 'hash', hash: parseHash(params[0], 0) })),
    eth_getUncleCountByBlockNumber: (params) => (expectParams(params, 1), uncleCount(parseBlockNumber(params[0], 0))),
  };
}
