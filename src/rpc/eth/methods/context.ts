/** What every eth_ method group is built from. */
import type { Logger } from '../../../log/logger.js';
import type { EthBackend, MaybePromise } from '../backend.js';
import type { FilterRegistry } from '../filter-registry.js';
import type { SubscriptionHub } from '../subscriptions.js';

/** Settings of the eth method table. */
export interface EthMethodsOptions {
  /** `max-log-block-range`: widest eth_getLogs range. */
  maxLogBlockRange: number;
  /** `max-filters`: polling filters installed at once (default 1,000). */
  maxFilters?: number;
  /** `filter-timeout` in ms: an unpolled filter expires after it (default 5 minutes, as in geth). */
  filterTimeoutMs?: number;
  /** Node version for web3_clientVersion, e.g. "v0.1.0". */
  version: string;
  logger?: Logger;
}

/** The backend, the settings and the subscription registry the method groups share. */
export interface EthMethodContext {
  readonly backend: EthBackend;
  readonly options: EthMethodsOptions;
  readonly subscriptions: SubscriptionHub;
  readonly filters: FilterRegistry;
}

/**
 * `format(value)`, synchronously when the backend answered synchronously: a state read then
 * allocates no Promise on its way to the wire.
 */
export function then<T, R>(value: MaybePromise<T>, format: (value: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(format) : format(value);
}
