/**
 * Contract code by code hash, shared by every state manager of a chain. Code under a hash
 * never changes, so one copy serves every height; handing out the same array each time also
 * lets the jump-destination analysis of that code be cached (see jump-analysis-cache.ts).
 */
import { latin1 } from '../util/latin1.js';

/**
 * What an entry costs besides its code: the map slot, the 32-character key and the array
 * object (measured at about 190 bytes of heap for 1-byte code). Counting only code let contracts
 * with tiny code hold far more memory than the budget said.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/** A bounded map from code hash to code. */
export class CodeCache {
  readonly #codes = new Map<string, Uint8Array>();
  #bytes = 0;

  /** A cache holding at most `maxBytes` of code and per-entry overhead, by estimate (oldest entries leave first). */
  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** The code with `hash`, if cached. */
  get(hash: Uint8Array): Uint8Array | undefined {
    return this.#codes.get(latin1(hash));
  }

  /** Remembers `code` under `hash` and returns the cached copy. */
  put(hash: Uint8Array, code: Uint8Array): Uint8Array {
    const id = latin1(hash);
    const existing = this.#codes.get(id);
    if (existing !== undefined) return existing;
    this.#codes.set(id, code);
    this.#bytes += ENTRY_OVERHEAD_BYTES + code.length;
    for (const [oldest, old] of this.#codes) {
      if (this.#bytes <= this.maxBytes) break;
      this.#codes.delete(oldest);
      this.#bytes -= ENTRY_OVERHEAD_BYTES + old.length;
    }
    return code;
  }
}
