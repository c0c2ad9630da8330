/** Polling filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter. */
import { RpcError, expectParams, invalidArgument, type MethodTable } from '../../jsonrpc/index.js';
import { tagHeight } from '../../../provider/index.js';
import { filterNotFound } from '../errors.js';
import { checkFilterBounds, checkLogRange, parseLogFilter, type LogFilter } from '../filters.js';
import { formatLog, formatTransaction } from '../format.js';
import { parseBool } from '../params.js';
import { bytesHex } from '../hex.js';
import { then, type EthMethodContext } from './context.js';

/** A filter id argument (geth's rpc.ID is any string). */
function parseFilterId(value: unknown, index: number): string {
  if (typeof value !== 'string') throw invalidArgument(index, 'json: cannot unmarshal non-string into Go value of type rpc.ID');
  return value;
}

/** The six filter methods over the node's filter table. */
export function filterMethods({ backend, options, filters }: EthMethodContext): MethodTable {
  const logsOf = (criteria: LogFilter) => {
    const query = (from: number, to: number) =>
      then(backend.getLogs({ fromBlock: from, toBlock: to, addresses: criteria.addresses, topics: criteria.topics }), (logs) => logs.map(formatLog));
    if (criteria.blockHash !== undefined) {
      return then(backend.heightOf({ kind: 'hash', hash: criteria.blockHash }), (height) => {
        if (height === null) throw RpcError.server('unknown block');
        return query(height, height);
      });
    }
    // Tags resolve now, as geth resolves them when the logs are asked for.
    const heights = backend.heights();
    const from = criteria.fromBlock === undefined ? heights.latest : tagHeight(criteria.fromBlock, heights);
    const to = criteria.toBlock === undefined ? heights.latest : tagHeight(criteria.toBlock, heights);
    checkLogRange(from, to, heights.latest, options.maxLogBlockRange);
    return query(from, to);
  };
  return {
    eth_newFilter: (params) => {
      expectParams(params, 1);
      const criteria = parseLogFilter(params[0], 0);
      checkFilterBounds(criteria);
      return filters.install('logs', { criteria });
    },
    eth_newBlockFilter: (params) => (expectParams(params, 0), filters.install('blocks')),
    eth_newPendingTransactionFilter: (params) => {
      expectParams(params, 0, 1);
      const full = params[0] === undefined || params[0] === null ? false : parseBool(params[0], 0);
      return filters.install('pendingTransactions', { fullTransactions: full });
    },
    eth_getFilterChanges: async (params) => {
      expectParams(params, 1);
      const changes = filters.changes(parseFilterId(params[0], 0));
      if (changes === undefined) throw filterNotFound();
      if (changes.kind === 'logs') return changes.logs.map(formatLog);
      if (!changes.fullTransactions) return changes.hashes.map(bytesHex);
      // Rendered as pending transactions, as geth renders them; one that is gone by now is left out.
      const located = await Promise.all(changes.hashes.map((hash) => backend.transactionByHash(hash)));
      return located.flatMap((found) => (found === null ? [] : [formatTransaction(found.tx, null)]));
    },
    eth_getFilterLogs: (params) => {
      expectParams(params, 1);
      const criteria = filters.logCriteria(parseFilterId(params[0], 0));
      if (criteria === undefined) throw filterNotFound();
      return logsOf(criteria);
    },
    eth_uninstallFilter: (params) => (expectParams(params, 1), filters.uninstall(parseFilterId(params[0], 0))),
  };
}
