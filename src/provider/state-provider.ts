/**
 * State at a height, chosen once: the commitment (SC) for the latest height, the versioned
 * store (SS) below it — the EVM SS for `evm` keys on a split node, which the composite store
 * routes — and height 0 as the genesis state. A pruned or future height is one typed error.
 */
import type { AppReader, StateAt } from '../app/index.js';
import { BANK_STORE, EVM_STORE, balanceKey, codeHashKey, codeKey, decodeUint, nonceKey, storageKey } from '../evm/keys.js';
import { HeightUnavailableError } from './errors.js';

/** A height to read state at. */
export type StateHeight = number | 'latest';

export type { StateAt };

/** An account as eth_getBalance / eth_getTransactionCount / eth_getCode see it. */
export interface AccountState {
  nonce: bigint;
  balance: bigint;
  /** keccak256 of the code (the empty-code hash for an account without code). */
  codeHash: Uint8Array;
}

const EMPTY_CODE_HASH = Buffer.from('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'hex');

/** State views at heights over one App's stores. */
export class StateProvider {
  constructor(private readonly app: AppReader) {}

  /** The last committed height (0 before the first block). */
  latestHeight(): number {
    return this.app.height();
  }

  /** The oldest height whose state can be read: 0 while the genesis state is retained. */
  earliestHeight(): number {
    const earliest = this.app.earliestHeight();
    return earliest <= this.app.genesis.initial_height ? 0 : earliest;
  }

  /**
   * The state at `height`. Height 0 is the genesis state, committed with the first block (or
   * staged, before it). With `pinned`, the latest height is also read from the SS when it
   * has applied it, so a reader that yields (a long trace) is not moved by blocks committed
   * meanwhile. Throws HeightUnavailableError for a pruned or future height.
   */
  at(height: StateHeight, options: { pinned?: boolean } = {}): StateAt {
    const latest = this.app.height();
    if (height === 'latest') return this.#latest(latest, options.pinned === true);
    if (height > latest) throw new HeightUnavailableError(height, 'future', latest);
    // The latest height is always retained; it is the common read, so it skips the SS query.
    if (height === latest && height !== 0) return this.#latest(latest, options.pinned === true);
    const earliest = this.earliestHeight();
    if (height < earliest) throw new HeightUnavailableError(height, 'pruned', earliest);
    if (height === 0) {
      if (latest === 0) return { height: 0, view: this.app.latestView() };
      height = this.app.genesis.initial_height;
    }
    if (height === latest) return this.#latest(latest, options.pinned === true);
    // The SS applies a block after the SC commits it, off the JavaScript thread; until it has,
    // a read there would find the versions before it — a wrong answer, so an error instead.
    const stored = this.app.storedHeight();
    if (height > stored) throw new HeightUnavailableError(height, 'applying', stored);
    return { height, view: this.app.storedView(height) };
  }

  #latest(latest: number, pinned: boolean): StateAt {
    if (pinned && latest > 0 && latest <= this.app.storedHeight()) return { height: latest, view: this.app.storedView(latest) };
    return { height: latest, view: this.app.latestView() };
  }

  /** Nonce, balance and code hash of `address`. */
  account(address: Uint8Array, height: StateHeight): AccountState {
    const { view } = this.at(height);
    return {
      nonce: decodeUint(view.get(EVM_STORE, nonceKey(address))),
      balance: decodeUint(view.get(BANK_STORE, balanceKey(address))),
      codeHash: view.get(EVM_STORE, codeHashKey(address)) ?? EMPTY_CODE_HASH,
    };
  }

  /** The balance of `address` (one read, for eth_getBalance). */
  balance(address: Uint8Array, height: StateHeight): bigint {
    return decodeUint(this.at(height).view.get(BANK_STORE, balanceKey(address)));
  }

  /** The nonce of `address` (one read, for eth_getTransactionCount). */
  nonce(address: Uint8Array, height: StateHeight): bigint {
    return decodeUint(this.at(height).view.get(EVM_STORE, nonceKey(address)));
  }

  /** The code of `address` (empty without code). */
  code(address: Uint8Array, height: StateHeight): Uint8Array {
    return this.at(height).view.get(EVM_STORE, codeKey(address)) ?? new Uint8Array();
  }

  /** The 32-byte value of storage `slot` of `address`. */
  storage(address: Uint8Array, slot: Uint8Array, height: StateHeight): Uint8Array {
    return this.at(height).view.get(EVM_STORE, storageKey(address, slot)) ?? new Uint8Array(32);
  }
}
