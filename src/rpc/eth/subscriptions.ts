/**
 * eth_subscribe over WebSocket: newHeads and logs. One backend listener fans each committed
 * block out to the subscriptions; a subscription lives until eth_unsubscribe or until its
 * connection closes (noticed at the next push, since the connection's close is not reported here).
 */
import { Logger } from '../../log/logger.js';
import type { WsConnection } from '../transport/types.js';
import type { EthBackend, NewBlockEvent, Unsubscribe } from './backend.js';
import { logMatches, type LogCriteria } from './filters.js';
import { formatHeader, formatLog } from './format.js';
import { newRpcId } from './rpc-id.js';

/** Subscription kinds served. */
export type SubscriptionKind = 'newHeads' | 'logs';

interface Subscription {
  readonly id: string;
  readonly kind: SubscriptionKind;
  readonly connection: WsConnection;
  readonly criteria: LogCriteria;
}

/** Live subscriptions of every connection. */
export class SubscriptionHub {
  readonly #backend: EthBackend;
  readonly #logger: Logger;
  readonly #byId = new Map<string, Subscription>();
  #stopBackend: Unsubscribe | undefined;

  constructor(backend: EthBackend, logger: Logger) {
    this.#backend = backend;
    this.#logger = logger;
  }

  /** Subscriptions currently live. */
  get size(): number {
    return this.#byId.size;
  }

  /** Starts a subscription on `connection`; returns a geth-style id. */
  subscribe(connection: WsConnection, kind: SubscriptionKind, criteria: LogCriteria): string {
    const id = newRpcId();
    this.#byId.set(id, { id, kind, connection, criteria });
    this.#stopBackend ??= this.#backend.onNewBlock((event) => this.#publish(event));
    return id;
  }

  /** Ends a subscription of `connection`; false when it has no subscription with that id. */
  unsubscribe(connection: WsConnection, id: string): boolean {
    const subscription = this.#byId.get(id);
    if (subscription === undefined || subscription.connection.id !== connection.id) return false;
    this.#remove(id);
    return true;
  }

  /** Ends every subscription of a connection (call when it closes). */
  dropConnection(connection: WsConnection): void {
    for (const subscription of [...this.#byId.values()]) {
      if (subscription.connection.id === connection.id) this.#remove(subscription.id);
    }
  }

  /** Ends everything and detaches from the backend. */
  close(): void {
    this.#byId.clear();
    this.#stopBackend?.();
    this.#stopBackend = undefined;
  }

  #remove(id: string): void {
    this.#byId.delete(id);
    if (this.#byId.size === 0 && this.#stopBackend !== undefined) {
      this.#stopBackend();
      this.#stopBackend = undefined;
    }
  }

  #publish(event: NewBlockEvent): void {
    let head: string | undefined;
    for (const subscription of [...this.#byId.values()]) {
      if (!subscription.connection.isOpen) {
        this.#remove(subscription.id);
        continue;
      }
      if (subscription.kind === 'newHeads') {
        head ??= JSON.stringify(formatHeader(event.header));
        this.#send(subscription, head);
        continue;
      }
      for (const log of event.logs) {
        if (logMatches(subscription.criteria, log)) this.#send(subscription, JSON.stringify(formatLog(log)));
      }
    }
  }

  #send(subscription: Subscription, resultJson: string): void {
    const text = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription.id}","result":${resultJson}}}`;
    if (!subscription.connection.send(text)) {
      this.#logger.debug('subscription dropped: connection closed or too slow', { connection: subscription.connection.id, subscription: subscription.id });
      this.#remove(subscription.id);
    }
  }
}
