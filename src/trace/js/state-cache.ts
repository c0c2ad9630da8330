/**
 * The state a tracer's `db` object answers from. QuickJS calls the host synchronously while
 * the StateReader is asynchronous, so before each tracer call the host loads the accounts and
 * slots the call can be expected to read, and `db` answers from that snapshot. A read outside
 * the snapshot fails with JsTracerStateError and the key joins the StatePreload, which loads
 * it before every later call — also in a re-run of the trace, which is how the node answers a
 * request whose tracer missed (see StatePreload). Reads stay valid until the host
 * invalidates them (after an opcode that can change state).
 */
import { JsTracerStateError } from './errors.js';
import type { Hex, StateReader } from '../types.js';

/** Which `db` methods a tracer's source mentions (only those are loaded). */
export interface DbUses {
  account: boolean;
  code: boolean;
  storage: boolean;
}

/** The `db` methods `source` can call, found by name. */
export function dbUsesOf(source: string): DbUses {
  return {
    account: /\b(getBalance|getNonce|exists)\b/.test(source),
    code: /\bgetCode\b/.test(source),
    storage: /\bgetState\b/.test(source),
  };
}

interface AccountState {
  exists: boolean;
  balance: bigint;
  nonce: bigint;
}

const slotKey = (address: Hex, slot: Hex): string => `${address}:${slot}`;

/**
 * Keys the JavaScript tracers of one request read outside their snapshots. Tracers sharing
 * it load these before every call; `revision` grows with each new key, so a caller can tell
 * that a run missed state and run it again with that state loaded.
 */
export class StatePreload {
  readonly accounts = new Set<Hex>();
  readonly slots = new Map<string, [Hex, Hex]>();
  /** How many keys have been added. */
  revision = 0;
}

/** A snapshot of the state a tracer call may read, kept until something may have changed it. */
export class StateSnapshot {
  private accounts = new Map<Hex, AccountState>();
  private codes = new Map<Hex, Uint8Array>();
  private slots = new Map<string, Hex>();
  /** Keys a tracer asked for outside a snapshot: loaded for every later call. */
  private readonly wantedAccounts: Set<Hex>;
  private readonly wantedSlots: Map<string, [Hex, Hex]>;

  constructor(private readonly uses: DbUses, private readonly preload = new StatePreload()) {
    this.wantedAccounts = preload.accounts;
    this.wantedSlots = preload.slots;
  }

  /** Whether the tracer can read state at all (nothing is loaded otherwise). */
  get needed(): boolean {
    return this.uses.account || this.uses.code || this.uses.storage;
  }

  /** Forgets what was read: `storage` after a storage write, `all` after anything that can move value, code or nonces. */
  invalidate(scope: 'storage' | 'all'): void {
    this.slots = new Map();
    if (scope === 'storage') return;
    this.accounts = new Map();
    this.codes = new Map();
  }

  /** Adds `addresses` and `slots` (plus earlier misses) not yet in the snapshot, read from `reader` now. */
  async load(reader: StateReader, addresses: Iterable<Hex>, slots: Iterable<[Hex, Hex]>): Promise<void> {
    if (!this.needed) return;
    const accountSet = new Set<Hex>([...addresses, ...this.wantedAccounts]);
    const reads: Array<Promise<void>> = [];
    for (const address of accountSet) {
      if (this.uses.account && !this.accounts.has(address)) {
        reads.push(
          Promise.all([reader.exists(address), reader.balance(address), reader.nonce(address)]).then(([exists, balance, nonce]) => {
            this.accounts.set(address, { exists, balance, nonce });
          }),
        );
      }
      if (this.uses.code && !this.codes.has(address)) reads.push(reader.code(address).then((code) => void this.codes.set(address, code)));
    }
    if (this.uses.storage) {
      const slotMap = new Map<string, [Hex, Hex]>(this.wantedSlots);
      for (const [address, slot] of slots) slotMap.set(slotKey(address, slot), [address, slot]);
      for (const [key, [address, slot]] of slotMap) if (!this.slots.has(key)) reads.push(reader.storage(address, slot).then((value) => void this.slots.set(key, value)));
    }
    await Promise.all(reads);
  }

  private account(address: Hex, method: string): AccountState {
    const state = this.accounts.get(address);
    if (state === undefined) throw this.miss(method, address, () => this.wantedAccounts.add(address));
    return state;
  }

  private miss(method: string, key: string, remember: () => void): JsTracerStateError {
    remember();
    this.preload.revision++;
    return new JsTracerStateError(`db.${method}(${key}): this state was not loaded before the call; it is loaded for every later call`);
  }

  /** Whether `address` exists. */
  exists(address: Hex): boolean {
    return this.account(address, 'exists').exists;
  }

  /** Balance of `address`. */
  balance(address: Hex): bigint {
    return this.account(address, 'getBalance').balance;
  }

  /** Nonce of `address`. */
  nonce(address: Hex): bigint {
    return this.account(address, 'getNonce').nonce;
  }

  /** Code of `address`. */
  code(address: Hex): Uint8Array {
    const code = this.codes.get(address);
    if (code === undefined) throw this.miss('getCode', address, () => this.wantedAccounts.add(address));
    return code;
  }

  /** Value of `slot` of `address`. */
  storage(address: Hex, slot: Hex): Hex {
    const key = slotKey(address, slot);
    const value = this.slots.get(key);
    if (value === undefined) throw this.miss('getState', key, () => this.wantedSlots.set(key, [address, slot]));
    return value;
  }
}
