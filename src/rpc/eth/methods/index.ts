/** The eth_/net_/web3_ method table over an EthBackend, one module per method group. */
import { Logger } from '../../../log/logger.js';
import type { MethodTable } from '../../jsonrpc/index.js';
import type { EthBackend } from '../backend.js';
import { SubscriptionHub } from '../subscriptions.js';
import { blockMethods } from './blocks.js';
import { callMethods } from './call.js';
import { clientMethods } from './client.js';
import type { EthMethodContext, EthMethodsOptions } from './context.js';
import { feeMethods } from './fees.js';
import { logMethods } from './logs.js';
import { stateMethods } from './state.js';
import { subscriptionMethods } from './subscriptions.js';
import { transactionMethods } from './transactions.js';

export { clientVersion } from './client.js';
export type { EthMethodsOptions } from './context.js';

/** The method table and the subscription registry behind eth_subscribe. */
export interface EthRpc {
  readonly methods: MethodTable;
  readonly subscriptions: SubscriptionHub;
}

/** Builds the eth_/net_/web3_ methods over `backend`. */
export function createEthMethods(backend: EthBackend, options: EthMethodsOptions): EthRpc {
  const logger = options.logger ?? new Logger({ base: { module: 'rpc-eth' } });
  const context: EthMethodContext = { backend, options, subscriptions: new SubscriptionHub(backend, logger) };
  const methods: MethodTable = {
    ...clientMethods(context),
    ...blockMethods(context),
    ...stateMethods(context),
    ...callMethods(context),
    ...transactionMethods(context),
    ...logMethods(context),
    ...feeMethods(context),
    ...subscriptionMethods(context),
  };
  return { methods, subscriptions: context.subscriptions };
}
