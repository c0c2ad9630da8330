/**
 * Outcomes of eth_call by (height, block context, request). The state at a committed height
 * never changes and a call writes nothing, so the same request at the same height always
 * has the same outcome; popular reads (a token balance, an oracle price) are answered once
 * per block instead of once per client. Calls with state overrides are not cached.
 */
import { LRUCache } from 'lru-cache';

import type { CallRequest, CallResult } from '../evm/call.js';
import type { BlockContext } from '../evm/block-context.js';
import { plainHex } from '../util/hex.js';

/** A finished call: its result, or the typed error it threw. */
export type CallOutcome = { ok: true; result: CallResult } | { ok: false; error: unknown };

/** A bounded map of call outcomes (least recently used out first). */
export class CallResultCache {
  readonly #outcomes: LRUCache<string, CallOutcome> | undefined;

  /** A cache of at most `maxEntries` outcomes (0 disables it). */
  constructor(maxEntries: number) {
    this.#outcomes = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  /** The cache key of `request` at `block`, or undefined when the cache is off. */
  key(block: BlockContext, request: CallRequest): string | undefined {
    if (this.#outcomes === undefined) return undefined;
    const access = (request.accessList ?? []).map((e) => hex(e.address) + e.storageKeys.map(hex).join(','));
    return [
      block.height,
      block.timeMs,
      hex(block.proposer),
      block.baseFee,
      block.gasLimit,
      hex(request.from),
      hex(request.to),
      request.gas,
      request.gasPrice,
      request.maxFeePerGas,
      request.maxPriorityFeePerGas,
      request.value,
      hex(request.data),
      access.join(';'),
    ].join('|');
  }

  /** The outcome recorded under `key`. */
  get(key: string): CallOutcome | undefined {
    return this.#outcomes?.get(key);
  }

  /** Records `outcome` under `key`, evicting the least recently used entry when full. */
  set(key: string, outcome: CallOutcome): void {
    this.#outcomes?.set(key, outcome);
  }

  /** Forgets everything (after a rollback rewrote heights). */
  clear(): void {
    this.#outcomes?.clear();
  }
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : plainHex(bytes);
}
