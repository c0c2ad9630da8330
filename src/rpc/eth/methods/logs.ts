/** eth_getLogs over a block range or one block, capped by `max-log-block-range`. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { tagHeight } from '../../../provider/index.js';
import { checkLogRange, parseLogFilter } from '../filters.js';
import { formatLogsJson } from '../format.js';
import { then, type EthMethodContext } from './context.js';

/** eth_getLogs. */
export function logMethods({ backend, options }: EthMethodContext): MethodTable {
  return {
    eth_getLogs: (params) => {
      expectParams(params, 1);
      const filter = parseLogFilter(params[0], 0);
      const query = (from: number, to: number) =>
        then(backend.getLogs({ fromBlock: from, toBlock: to, addresses: filter.addresses, topics: filter.topics }), formatLogsJson);
      if (filter.blockHash !== undefined) {
        return then(backend.heightOf({ kind: 'hash', hash: filter.blockHash }), (height) => {
          if (height === null) throw RpcError.server('unknown block');
          return query(height, height);
        });
      }
      const heights = backend.heights();
      // Range ends past the head are kept, so the range check can name them.
      const from = filter.fromBlock === undefined ? heights.latest : tagHeight(filter.fromBlock, heights);
      const to = filter.toBlock === undefined ? heights.latest : tagHeight(filter.toBlock, heights);
      checkLogRange(from, to, heights.latest, options.maxLogBlockRange);
      return query(from, to);
    },
  };
}
