/** Blocks and their transaction counts, by number, tag or hash. */
import { expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { formatBlock } from '../format.js';
import { quantity } from '../hex.js';
import { parseBlockNumber, parseBool, parseHash } from '../params.js';
import { then, type EthMethodContext } from './context.js';

function countOrNull(count: number | null): string | null {
  return count === null ? null : quantity(count);
}

/** eth_blockNumber, eth_getBlockByNumber/ByHash, eth_getBlockTransactionCountByNumber/ByHash. */
export function blockMethods({ backend }: EthMethodContext): MethodTable {
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
  };
}
