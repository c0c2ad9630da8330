/** eth_subscribe / eth_unsubscribe over WebSocket connections. */
import { ErrorCode, RpcError, expectParams, invalidArgument, type MethodTable } from '../../jsonrpc/index.js';
import { notificationsUnsupported } from '../errors.js';
import { parseLogCriteria } from '../filters.js';
import type { EthMethodContext } from './context.js';

/** eth_subscribe (newHeads, logs), eth_unsubscribe. */
export function subscriptionMethods({ subscriptions }: EthMethodContext): MethodTable {
  return {
    eth_subscribe: (params, ctx) => {
      if (ctx.connection === undefined) throw notificationsUnsupported();
      expectParams(params, 1, 2);
      const kind = params[0];
      if (typeof kind !== 'string') throw invalidArgument(0, 'json: cannot unmarshal non-string into Go value of type string');
      if (kind === 'newHeads') {
        expectParams(params, 1);
        return subscriptions.subscribe(ctx.connection, 'newHeads', { addresses: [], topics: [] });
      }
      if (kind === 'logs') return subscriptions.subscribe(ctx.connection, 'logs', parseLogCriteria(params[1], 1));
      throw new RpcError(ErrorCode.MethodNotFound, `no ${JSON.stringify(kind)} subscription in eth namespace`);
    },
    eth_unsubscribe: (params, ctx) => {
      if (ctx.connection === undefined) throw notificationsUnsupported();
      expectParams(params, 1);
      const id = params[0];
      if (typeof id !== 'string') throw invalidArgument(0, 'json: cannot unmarshal non-string into Go value of type rpc.ID');
      if (!subscriptions.unsubscribe(ctx.connection, id)) throw RpcError.server('subscription not found');
      return true;
    },
  };
}
