/**
 * Installed polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter):
 * each buffers what happened since its last eth_getFilterChanges. As in geth a filter nobody
 * polls expires after a timeout; unlike geth the table is bounded (`max-filters`) and so is
 * each filter's unread buffer, since every entry is memory a client asked the node to hold.
 */
import type { Logger } from '../../log/logger.js';
import type { EthBackend, EthLog, NewBlockEvent, Unsubscribe } from './backend.js';
import { tooManyFilters } from './errors.js';
import { logMatches, type LogFilter } from './filters.js';
import { newRpcId } from './rpc-id.js';

/** What a filter collects. */
export type FilterKind = 'blocks' | 'pendingTransactions' | 'logs';

/** Settings of the filter table. */
export interface FilterRegistryOptions {
  /** `max-filters`: filters installed at once. */
  readonly maxFilters: number;
  /** `filter-timeout` in ms: a filter not polled for this long is removed (geth: 5 minutes). */
  readonly timeoutMs: number;
  /** Unread entries one filter may hold; a filter that outgrows it is removed. */
  readonly maxUnread: number;
  readonly logger: Logger;
  /** Clock, ms (tests pass their own). */
  readonly now?: () => number;
}

/** What eth_getFilterChanges returns: hashes for block and pending-tx filters, logs for log filters. */
export type FilterChanges =
  | { readonly kind: 'hashes'; readonly hashes: Uint8Array[]; readonly fullTransactions: boolean }
  | { readonly kind: 'logs'; readonly logs: EthLog[] };

/** How a filter is installed: log criteria for a log filter, the fullTx flag for a pending-tx filter. */
export interface FilterSpec {
  readonly criteria?: LogFilter;
  readonly fullTransactions?: boolean;
}

interface Filter {
  readonly kind: FilterKind;
  /** Log filters only. */
  readonly criteria: LogFilter | undefined;
  /** Pending-tx filters: answer with transaction objects instead of hashes. */
  readonly fullTransactions: boolean;
  hashes: Uint8Array[];
  logs: EthLog[];
  /** When eth_getFilterChanges last ran (or the install), ms. */
  lastPolled: number;
}

/** Unread entries one filter may hold unless the settings say otherwise. */
export const DEFAULT_MAX_UNREAD = 10_000;

/** The installed filters of the node (shared by all connections, as in geth). */
export class FilterRegistry {
  readonly #options: FilterRegistryOptions;
  readonly #now: () => number;
  readonly #filters = new Map<string, Filter>();
  #stopBlocks: Unsubscribe | undefined;
  #stopPending: Unsubscribe | undefined;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: EthBackend,
    options: FilterRegistryOptions,
  ) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Filters installed now. */
  get size(): number {
    return this.#filters.size;
  }

  /** Installs a filter and returns its id; throws the -32005 RpcError when the table is full. */
  install(kind: FilterKind, spec: FilterSpec = {}): string {
    this.#sweep();
    if (this.#filters.size >= this.#options.maxFilters) throw tooManyFilters(this.#options.maxFilters);
    const id = newRpcId();
    this.#filters.set(id, {
      kind,
      criteria: spec.criteria,
      fullTransactions: spec.fullTransactions === true,
      hashes: [],
      logs: [],
      lastPolled: this.#now(),
    });
    this.#attach();
    return id;
  }

  /** What filter `id` collected since the last call (and restarts its timeout), or undefined when there is no such filter. */
  changes(id: string): FilterChanges | undefined {
    const filter = this.#live(id);
    if (filter === undefined) return undefined;
    filter.lastPolled = this.#now();
    if (filter.kind === 'logs') {
      const logs = filter.logs;
      filter.logs = [];
      return { kind: 'logs', logs };
    }
    const hashes = filter.hashes;
    filter.hashes = [];
    return { kind: 'hashes', hashes, fullTransactions: filter.fullTransactions };
  }

  /** The criteria of log filter `id`, or undefined when `id` names no log filter (geth does not restart the timeout here). */
  logCriteria(id: string): LogFilter | undefined {
    const filter = this.#live(id);
    return filter?.kind === 'logs' ? filter.criteria : undefined;
  }

  /** Removes filter `id`; false when there was none. */
  uninstall(id: string): boolean {
    const filter = this.#live(id);
    if (filter === undefined) return false;
    this.#remove(id);
    return true;
  }

  /** Removes every filter and detaches from the backend. */
  close(): void {
    this.#filters.clear();
    this.#detach();
  }

  /** The filter, unless it is absent or has timed out (then it goes now, not at the next sweep). */
  #live(id: string): Filter | undefined {
    const filter = this.#filters.get(id);
    if (filter === undefined) return undefined;
    if (this.#expired(filter, this.#now())) {
      this.#remove(id);
      return undefined;
    }
    return filter;
  }

  #expired(filter: Filter, now: number): boolean {
    return now - filter.lastPolled >= this.#options.timeoutMs;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, filter] of this.#filters) {
      if (this.#expired(filter, now)) this.#filters.delete(id);
    }
    this.#detach();
  }

  #remove(id: string): void {
    this.#filters.delete(id);
    this.#detach();
  }

  /** Listens to the backend only while some filter needs it: publishing a block to no one costs nothing. */
  #attach(): void {
    let blocks = false;
    let pending = false;
    for (const filter of this.#filters.values()) {
      if (filter.kind === 'pendingTransactions') pending = true;
      else blocks = true;
    }
    if (blocks) this.#stopBlocks ??= this.backend.onNewBlock((event) => this.#onBlock(event));
    if (pending) this.#stopPending ??= this.backend.onPendingTransaction((hash) => this.#onPending(hash));
    if (this.#sweeper === undefined && this.#filters.size > 0) {
      // Expiry is also checked on every access; the sweep only frees filters nobody touches.
      const every = Math.max(250, Math.min(this.#options.timeoutMs / 4, 30_000));
      this.#sweeper = setInterval(() => this.#sweep(), every);
      this.#sweeper.unref();
    }
  }

  #detach(): void {
    let blocks = false;
    let pending = false;
    for (const filter of this.#filters.values()) {
      if (filter.kind === 'pendingTransactions') pending = true;
      else blocks = true;
    }
    if (!blocks && this.#stopBlocks !== undefined) {
      this.#stopBlocks();
      this.#stopBlocks = undefined;
    }
    if (!pending && this.#stopPending !== undefined) {
      this.#stopPending();
      this.#stopPending = undefined;
    }
    if (this.#filters.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #onBlock(event: NewBlockEvent): void {
    for (const [id, filter] of this.#filters) {
      if (filter.kind === 'blocks') {
        filter.hashes.push(event.header.hash);
      } else if (filter.kind === 'logs') {
        for (const log of event.logs) {
          if (withinRange(filter.criteria!, log.blockNumber) && logMatches(filter.criteria!, log)) filter.logs.push(log);
        }
      } else {
        continue;
      }
      this.#checkOverflow(id, filter);
    }
  }

  #onPending(hash: Uint8Array): void {
    for (const [id, filter] of this.#filters) {
      if (filter.kind !== 'pendingTransactions') continue;
      filter.hashes.push(hash);
      this.#checkOverflow(id, filter);
    }
  }

  /** A filter whose client stopped reading is dropped rather than left to grow until it expires. */
  #checkOverflow(id: string, filter: Filter): void {
    const unread = filter.kind === 'logs' ? filter.logs.length : filter.hashes.length;
    if (unread <= this.#options.maxUnread) return;
    this.#options.logger.debug('filter removed: too many unread entries', { filter: id, kind: filter.kind, unread });
    this.#remove(id);
  }
}

/** New logs count only inside the block numbers a filter names; a tag bound follows the head. */
function withinRange(criteria: LogFilter, height: number): boolean {
  if (criteria.blockHash !== undefined) return true;
  if (criteria.fromBlock?.kind === 'number' && height < criteria.fromBlock.number) return false;
  if (criteria.toBlock?.kind === 'number' && height > criteria.toBlock.number) return false;
  return true;
}
