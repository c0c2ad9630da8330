/** The eth_/net_/web3_ method table over an EthBackend, one module per method group. */
import { Logger } from '../../../log/logger.js';
import type { MethodTable } from '../../jsonrpc/index.js';
import type { EthBackend } from '../backend.js';
import { DEFAULT_MAX_UNREAD, FilterRegistry } from '../filter-registry.js';
import { SubscriptionHub } from '../subscriptions.js';
import { accessListMethods } from './access-list.js';
import { blockMethods } from './blocks.js';
import { callMethods } from './call.js';
import { clientMethods } from './client.js';
import type { EthMethodContext, EthMethodsOptions } from './context.js';
import { feeMethods } from './fees.js';
import { filterMethods } from './filters.js';
import { logMethods } from './logs.js';
import { rawMethods } from './raw.js';
import { simulateMethods } from './simulate.js';
import { stateMethods } from './state.js';
import { subscriptionMethods } from './subscriptions.js';
import { transactionMethods } from './transactions.js';
import { txpoolMethods } from './txpool.js';

export { clientVersion } from './client.js';
export type { EthMethodsOptions } from './context.js';

/** geth's filter timeout. */
export const DEFAULT_FILTER_TIMEOUT_MS = 5 * 60_000;
/** Filters installed at once when the settings name no cap. */
export const DEFAULT_MAX_FILTERS = 1000;

/** The method table, the subscription registry behind eth_subscribe and the polling filters. */
export interface EthRpc {
  readonly methods: MethodTable;
  readonly subscriptions: SubscriptionHub;
  readonly filters: FilterRegistry;
}

/** Builds the eth_/net_/web3_ methods over `backend`. */
export function createEthMethods(backend: EthBackend, options: EthMethodsOptions): EthRpc {
  const logger = options.logger ?? new Logger({ base: { module: 'rpc-eth' } });
  const filters = new FilterRegistry(backend, {
    maxFilters: options.maxFilters ?? DEFAULT_MAX_FILTERS,
    timeoutMs: options.filterTimeoutMs ?? DEFAULT_FILTER_TIMEOUT_MS,
    maxUnread: DEFAULT_MAX_UNREAD,
    logger,
  });
  const context: EthMethodContext = { backend, options, subscriptions: new SubscriptionHub(backend, logger), filters };
  const methods: MethodTable = {
    ...clientMethods(context),
    ...blockMethods(context),
    ...stateMethods(context),
    ...callMethods(context),
    ...accessListMethods(context),
    ...simulateMethods(context),
    ...transactionMethods(context),
    ...logMethods(context),
    ...feeMethods(context),
    ...subscriptionMethods(context),
    ...filterMethods(context),
    ...txpoolMethods(context),
    ...rawMethods(context),
  };
  return { methods, subscriptions: context.subscriptions, filters };
}
