/** The EVM JSON-RPC methods (eth_, net_, web3_) over the EthBackend interface. */
export type * from './backend.js';
export { createEthMethods, clientVersion, DEFAULT_FILTER_TIMEOUT_MS, DEFAULT_MAX_FILTERS, type EthMethodsOptions, type EthRpc } from './methods/index.js';
export { FilterRegistry, type FilterKind } from './filter-registry.js';
export { TransactionRejectedError, type RejectReason } from './errors.js';
export { logMatches, type LogCriteria } from './filters.js';
export { SubscriptionHub, type SubscriptionKind } from './subscriptions.js';
export { decodeRevertReason } from './revert.js';
export { formatBlock, formatHeader, formatLog, formatReceipt, formatTransaction, EMPTY_UNCLES_HASH } from './format.js';
