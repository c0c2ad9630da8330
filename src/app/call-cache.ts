/**
 * Outcomes of eth_call by (height, block context, request). The state at a committed height
 * never changes and a call writes nothing, so the same request at the same height always
 * has the same outcome; popular reads (a token balance, an oracle price) are answered once
 * per block instead of once per client. Calls with state overrides are not cached.
 */
import { LRUCache } from 'lru-cache';

import { CallRevertedError, type CallRequest, type CallResult } from '../evm/call.js';
import type { BlockContext } from '../evm/block-context.js';
import { plainHex } from '../util/hex.js';

/** A finished call: its result, or the typed error it threw. */
export type CallOutcome = { ok: true; result: CallResult } | { ok: false; error: unknown };

/**
 * What an entry costs beyond its key's characters and its result's bytes: the cache's slot,
 * the outcome and result objects, the byte array and its buffer. Measured in isolation for a
 * `balanceOf` call (a 241-character key, 32 bytes returned): 641 bytes an entry, 368 of them
 * overhead; the estimate keeps a margin.
 */
const ENTRY_OVERHEAD_BYTES = 512;
/**
 * The largest share of the budget one entry may take. A call with megabytes of calldata or of
 * return data is answered but not kept: counting entries alone let 150 distinct calls with 1 MB
 * of calldata each hold 389 MiB in their keys.
 */
const MAX_ENTRY_SHARE = 64;

/** A map of call outcomes bounded in estimated bytes (least recently used out first). */
export class CallResultCache {
  readonly #outcomes: LRUCache<string, CallOutcome> | undefined;
  readonly #maxEntryBytes: number;

  /** A cache of at most `maxBytes` of keys and outcomes, estimated (0, or too little for one entry, disables it). */
  constructor(maxBytes: number) {
    this.#maxEntryBytes = Math.floor(maxBytes / MAX_ENTRY_SHARE);
    this.#outcomes =
      this.#maxEntryBytes > ENTRY_OVERHEAD_BYTES
        ? new LRUCache({ maxSize: maxBytes, maxEntrySize: this.#maxEntryBytes, sizeCalculation: entryBytes })
        : undefined;
  }

  /** Estimated bytes the cached keys and outcomes hold now. */
  get bytes(): number {
    return this.#outcomes?.calculatedSize ?? 0;
  }

  /** The most estimated bytes the cache holds (0 when it is off). */
  get capacity(): number {
    return this.#outcomes?.maxSize ?? 0;
  }

  /** The cache key of `request` at `block`, or undefined when the cache is off or the call too large to keep. */
  key(block: BlockContext, request: CallRequest): string | undefined {
    if (this.#outcomes === undefined) return undefined;
    // Its hex alone would exceed what one entry may hold: not worth building.
    if (2 * (request.data?.length ?? 0) > this.#maxEntryBytes) return undefined;
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

/** Estimated bytes of one entry: key characters (ASCII, one byte each), the bytes an outcome carries, the overhead. */
function entryBytes(outcome: CallOutcome, key: string): number {
  const payload = outcome.ok
    ? outcome.result.returnData.length
    : (outcome.error instanceof Error ? outcome.error.message.length : 0) +
      (outcome.error instanceof CallRevertedError ? outcome.error.data.length : 0);
  return ENTRY_OVERHEAD_BYTES + key.length + payload;
}

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : plainHex(bytes);
}
