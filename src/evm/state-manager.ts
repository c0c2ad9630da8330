/**
 * A StateManager for @ethereumjs/vm over the app's module stores. Reads go to a StateView
 * (the latest SC state or the SS at a version); writes stay in a journaled overlay of
 * (store, key) → value that the block turns into changesets. Nothing here writes to a store.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';

import type { NamedChangeset } from '../store/index.js';
import type { CodeCache } from './code-cache.js';
import { keccak256 } from '../util/keccak.js';
import { latin1 } from '../util/latin1.js';
import {
  BANK_STORE,
  CODE_HASH_PREFIX,
  EVM_STORE,
  NONCE_PREFIX,
  balanceKey,
  codeHashKey,
  codeKey,
  codeSizeKey,
  decodeUint,
  encodeUint,
  nonceKey,
  packedAccountKeys,
  storageKey,
} from './keys.js';

/** Read access to module stores at one point in the chain's history. */
export interface StateView {
  /** The value of `key` in `store`, or undefined when absent. */
  get(store: string, key: Uint8Array): Uint8Array | undefined;
  /** get for many keys of one store, packed end to end (`keyLengths` each), where the view can do that in one read. */
  getManyPacked?(store: string, packedKeys: Uint8Array, keyLengths: Int32Array): Array<Uint8Array | undefined>;
}

/** A StateView over nothing: every key is absent. */
export const EMPTY_VIEW: StateView = { get: () => undefined };

/** An overlay entry: the value a key has in this block (null = deleted). */
interface Entry {
  store: string;
  key: Uint8Array;
  value: Uint8Array | null;
}

const STORE_TAG: Record<string, string> = { [BANK_STORE]: 'b', [EVM_STORE]: 'e' };
const CLEARED_TAG = 'c';
// Entry ids of an account's three fields, less the address (entryId(store, key) of keys that
// are the address, or a prefix byte and the address): changesets sorts an account record's
// writes among the overlay's entries by these ids.
const BALANCE_ID = STORE_TAG[BANK_STORE]!;
const NONCE_ID = STORE_TAG[EVM_STORE]! + String.fromCharCode(NONCE_PREFIX);
const CODE_HASH_ID = STORE_TAG[EVM_STORE]! + String.fromCharCode(CODE_HASH_PREFIX);
const ZERO_HASH = new Uint8Array(32);
const EMPTY = new Uint8Array(0);

function entryId(store: string, key: Uint8Array): string {
  const tag = STORE_TAG[store];
  if (tag === undefined) throw new Error(`the EVM state manager does not write store "${store}"`);
  return tag + latin1(key);
}

function bytesEqual(a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** Strips leading zero bytes, as the EVM expects storage values (zero = empty). */
function minimal(value: Uint8Array): Uint8Array {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  return i === 0 ? value : value.subarray(i);
}

function pad32(value: Uint8Array): Uint8Array {
  if (value.length === 32) return value;
  const out = new Uint8Array(32);
  out.set(value, 32 - value.length);
  return out;
}

/** A value of an account field: bytes, or null when absent. */
type FieldValue = Uint8Array | null;

/** Positions of an account's fields in AccountRecord. */
const BALANCE = 0;
const NONCE = 1;
const CODE_HASH = 2;
type Field = typeof BALANCE | typeof NONCE | typeof CODE_HASH;

/**
 * An account's balance, nonce and code hash as this state manager sees them: the values the
 * view holds (read together, once) and the values written since (undefined = not written).
 * One record per account, rather than an overlay entry and a cached read per field, keeps a
 * transfer's reads and writes to two map lookups.
 */
class AccountRecord {
  balance: FieldValue | undefined = undefined;
  nonce: FieldValue | undefined = undefined;
  codeHash: FieldValue | undefined = undefined;

  /** `at` is the address in latin1 (a code unit per byte). */
  constructor(
    readonly at: string,
    readonly baseBalance: FieldValue,
    readonly baseNonce: FieldValue,
    readonly baseCodeHash: FieldValue,
  ) {}

  /** The written value of `field` (undefined = not written). */
  written(field: Field): FieldValue | undefined {
    return field === BALANCE ? this.balance : field === NONCE ? this.nonce : this.codeHash;
  }

  /** Sets the written value of `field`. */
  write(field: Field, value: FieldValue | undefined): void {
    if (field === BALANCE) this.balance = value;
    else if (field === NONCE) this.nonce = value;
    else this.codeHash = value;
  }

  /** The view's value of `field`. */
  base(field: Field): FieldValue {
    return field === BALANCE ? this.baseBalance : field === NONCE ? this.baseNonce : this.baseCodeHash;
  }

  /** The current value of `field`. */
  value(field: Field): FieldValue {
    const written = this.written(field);
    return written === undefined ? this.base(field) : written;
  }
}

/** What a revert restores: an overlay entry, or an account record's field. */
type Undo = { id: string; previous: Entry | undefined } | { record: AccountRecord; field: Field; previous: FieldValue | undefined };

/**
 * The journaled overlay: checkpoints record an undo position, writes inside a checkpoint log
 * the previous value so a revert can restore it.
 */
class JournaledOverlay {
  readonly entries = new Map<string, Entry>();
  readonly #undo: Undo[] = [];
  readonly #marks: number[] = [];

  get(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  set(id: string, entry: Entry): void {
    if (this.#marks.length > 0) this.#undo.push({ id, previous: this.entries.get(id) });
    this.entries.set(id, entry);
  }

  /** Writes an account field, journaled like set. */
  setField(record: AccountRecord, field: Field, value: FieldValue): void {
    if (this.#marks.length > 0) this.#undo.push({ record, field, previous: record.written(field) });
    record.write(field, value);
  }

  checkpoint(): void {
    this.#marks.push(this.#undo.length);
  }

  commit(): void {
    if (this.#marks.pop() === undefined) throw new Error('commit without a checkpoint');
    // Once the outermost checkpoint commits nothing can be reverted any more.
    if (this.#marks.length === 0) this.#undo.length = 0;
  }

  revert(): void {
    const mark = this.#marks.pop();
    if (mark === undefined) throw new Error('revert without a checkpoint');
    while (this.#undo.length > mark) {
      const undo = this.#undo.pop()!;
      if ('record' in undo) undo.record.write(undo.field, undo.previous);
      else if (undo.previous === undefined) this.entries.delete(undo.id);
      else this.entries.set(undo.id, undo.previous);
    }
  }

  get depth(): number {
    return this.#marks.length;
  }

  /** Drops every entry and checkpoint. */
  clear(): void {
    this.entries.clear();
    this.#undo.length = 0;
    this.#marks.length = 0;
  }
}

/** A StateManager whose writes collect in an overlay over a read-only StateView. */
export class OverlayStateManager implements StateManagerInterface {
  #view: StateView;
  readonly #overlay = new JournaledOverlay();
  /** Base values already read (null = absent), so repeated reads skip the store; account fields are in #accounts. */
  readonly #baseCache = new Map<string, Uint8Array | null>();
  /** Accounts read or written, by address in latin1. */
  readonly #accounts = new Map<string, AccountRecord>();
  /** Storage slots ever written per address, so clearStorage can delete them. */
  readonly #writtenSlots = new Map<string, Set<string>>();
  /** Values of slots at the start of the current transaction (EIP-2200 gas). */
  readonly #original = new Map<string, Uint8Array>();

  /** The pre-transaction storage values the EVM prices SSTORE with. */
  readonly originalStorageCache: { get(address: Address, key: Uint8Array): Promise<Uint8Array>; clear(): void };

  readonly #codes: CodeCache | undefined;

  /** A state manager reading `view`; `codes` shares contract code between state managers. */
  constructor(view: StateView, codes?: CodeCache) {
    this.#view = view;
    this.#codes = codes;
    this.originalStorageCache = {
      get: async (address, key) => {
        const id = latin1(address.bytes) + latin1(key);
        let value = this.#original.get(id);
        if (value === undefined) {
          value = await this.getStorage(address, key);
          this.#original.set(id, value);
        }
        return value;
      },
      clear: () => this.#original.clear(),
    };
  }

  #base(id: string, store: string, key: Uint8Array): Uint8Array | null {
    const cached = this.#baseCache.get(id);
    return cached !== undefined ? cached : this.#load(id, store, key);
  }

  /** Reads `key` from the view and caches it under `id`. */
  #load(id: string, store: string, key: Uint8Array): Uint8Array | null {
    const value = this.#view.get(store, key) ?? null;
    this.#baseCache.set(id, value);
    return value;
  }

  #read(store: string, key: Uint8Array): Uint8Array | null {
    const id = entryId(store, key);
    const entry = this.#overlay.get(id);
    return entry ? entry.value : this.#base(id, store, key);
  }

  /** The record of the account at `a` (`at` in latin1), its fields read from the view the first time. */
  #account(a: Uint8Array, at: string): AccountRecord {
    let record = this.#accounts.get(at);
    if (record === undefined) {
      const view = this.#view;
      record = new AccountRecord(at, view.get(BANK_STORE, balanceKey(a)) ?? null, view.get(EVM_STORE, nonceKey(a)) ?? null, view.get(EVM_STORE, codeHashKey(a)) ?? null);
      this.#accounts.set(at, record);
    }
    return record;
  }

  #write(store: string, key: Uint8Array, value: Uint8Array | null): void {
    this.#overlay.set(entryId(store, key), { store, key, value });
  }

  /**
   * Reads the balance, nonce and code hash of `addresses` in one view call per store, so the
   * getAccountSync calls that follow find them cached. Only for a view with getManyPacked; the
   * view does not change under a state manager, so a value read ahead is what a later read
   * would find.
   */
  prefetchAccounts(addresses: readonly Uint8Array[]): void {
    const view = this.#view;
    if (view.getManyPacked === undefined) return;
    const accounts = this.#accounts;
    // Each address once, and none already read: a record may hold writes.
    const ats = new Set<string>();
    const unique: Uint8Array[] = [];
    for (const a of addresses) {
      const at = latin1(a);
      if (ats.has(at) || accounts.has(at)) continue;
      ats.add(at);
      unique.push(a);
    }
    if (unique.length === 0) return;
    const { bank, evm } = packedAccountKeys(unique);
    const balances = view.getManyPacked(BANK_STORE, bank.packed, bank.lengths);
    const evmValues = view.getManyPacked(EVM_STORE, evm.packed, evm.lengths);
    let i = 0;
    for (const at of ats) {
      accounts.set(at, new AccountRecord(at, balances[i] ?? null, evmValues[2 * i] ?? null, evmValues[2 * i + 1] ?? null));
      i++;
    }
  }

  /** The account at `address`, or undefined when it holds no balance, nonce or code. */
  async getAccount(address: Address): Promise<Account | undefined> {
    return this.getAccountSync(address);
  }

  /** Synchronous getAccount, for callers outside the VM. */
  getAccountSync(address: Address): Account | undefined {
    const a = address.bytes;
    const record = this.#account(a, latin1(a));
    const balance = record.value(BALANCE);
    const nonce = record.value(NONCE);
    const codeHash = record.value(CODE_HASH);
    if (balance === null && nonce === null && codeHash === null) return undefined;
    return new Account(decodeUint(nonce), decodeUint(balance), undefined, codeHash ?? KECCAK256_NULL);
  }

  /** Writes the account's balance, nonce and code hash (undefined deletes it). */
  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.putAccountSync(address, account);
  }

  /** Synchronous putAccount of an existing account, for callers outside the VM. */
  putAccountSync(address: Address, account: Account): void {
    const a = address.bytes;
    const record = this.#account(a, latin1(a));
    this.#putBalance(record, account.balance);
    this.#putNonce(record, account.nonce);
    const emptyCode = bytesEqual(account.codeHash, KECCAK256_NULL);
    this.#overlay.setField(record, CODE_HASH, emptyCode ? null : account.codeHash);
  }

  /** Sets only the balance of `address` (a value transfer changes nothing else of the recipient). */
  putBalanceSync(address: Address, balance: bigint): void {
    const a = address.bytes;
    this.#putBalance(this.#account(a, latin1(a)), balance);
  }

  /** Sets only the nonce and balance of `address` (what paying for a transfer changes). */
  putNonceAndBalanceSync(address: Address, nonce: bigint, balance: bigint): void {
    const a = address.bytes;
    const record = this.#account(a, latin1(a));
    this.#putBalance(record, balance);
    this.#putNonce(record, nonce);
  }

  #putBalance(record: AccountRecord, balance: bigint): void {
    this.#overlay.setField(record, BALANCE, balance === 0n ? null : encodeUint(balance, 32));
  }

  #putNonce(record: AccountRecord, nonce: bigint): void {
    this.#overlay.setField(record, NONCE, nonce === 0n ? null : encodeUint(nonce, 8));
  }

  /** Removes the account with its code and the storage this state manager can see. */
  async deleteAccount(address: Address): Promise<void> {
    const a = address.bytes;
    const record = this.#account(a, latin1(a));
    this.#overlay.setField(record, BALANCE, null);
    this.#overlay.setField(record, NONCE, null);
    this.#overlay.setField(record, CODE_HASH, null);
    this.#write(EVM_STORE, codeKey(a), null);
    this.#write(EVM_STORE, codeSizeKey(a), null);
    await this.clearStorage(address);
  }

  /** Changes some fields of an account (creating it when absent). */
  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = this.getAccountSync(address) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    await this.putAccount(address, account);
  }

  /** Sets the code (and with it code hash and code size) of `address`. */
  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const a = address.bytes;
    const record = this.#account(a, latin1(a));
    if (code.length === 0) {
      this.#write(EVM_STORE, codeKey(a), null);
      this.#write(EVM_STORE, codeSizeKey(a), null);
      this.#overlay.setField(record, CODE_HASH, null);
      return;
    }
    this.#write(EVM_STORE, codeKey(a), code);
    this.#write(EVM_STORE, codeSizeKey(a), encodeUint(BigInt(code.length), 8));
    this.#overlay.setField(record, CODE_HASH, keccak256(code));
  }

  /** The code of `address` (empty when none). */
  async getCode(address: Address): Promise<Uint8Array> {
    const a = address.bytes;
    const key = codeKey(a);
    const id = entryId(EVM_STORE, key);
    // Stored code is found by its hash; code this overlay wrote is not in the cache. Only
    // putCode and deleteAccount change code, and both write the code key itself.
    if (this.#codes === undefined || this.#overlay.get(id) !== undefined) return this.#read(EVM_STORE, key) ?? EMPTY;
    const hash = this.#account(a, latin1(a)).value(CODE_HASH);
    if (hash === null) return this.#base(id, EVM_STORE, key) ?? EMPTY;
    const cached = this.#codes.get(hash);
    if (cached !== undefined) return cached;
    const code = this.#base(id, EVM_STORE, key);
    return code === null ? EMPTY : this.#codes.put(hash, code);
  }

  /** The code size of `address`, from the stored size when present. */
  async getCodeSize(address: Address): Promise<number> {
    const size = this.#read(EVM_STORE, codeSizeKey(address.bytes));
    if (size !== null) return Number(decodeUint(size));
    return (await this.getCode(address)).length;
  }

  /** The storage value of `slot` with leading zeros stripped (empty = zero). */
  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (slot.length !== 32) throw new Error('storage slot must be 32 bytes');
    const a = address.bytes;
    const key = storageKey(a, slot);
    const id = entryId(EVM_STORE, key);
    const entry = this.#overlay.get(id);
    if (entry) return entry.value ? minimal(entry.value) : EMPTY;
    if (this.#overlay.get(CLEARED_TAG + latin1(a))) return EMPTY;
    const value = this.#base(id, EVM_STORE, key);
    return value ? minimal(value) : EMPTY;
  }

  /** Sets `slot` to `value` (an empty or all-zero value deletes it). */
  async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (slot.length !== 32) throw new Error('storage slot must be 32 bytes');
    const a = address.bytes;
    const stripped = minimal(value);
    this.#write(EVM_STORE, storageKey(a, slot), stripped.length === 0 ? null : pad32(stripped));
    const owner = latin1(a);
    let slots = this.#writtenSlots.get(owner);
    if (!slots) this.#writtenSlots.set(owner, (slots = new Set()));
    slots.add(latin1(slot));
  }

  /**
   * Wipes the storage of `address`. The stores cannot list an account's slots, so slots this
   * state manager wrote are deleted and all other reads return zero from here on; under
   * Cancun rules storage is only wiped for accounts created in the same transaction.
   */
  async clearStorage(address: Address): Promise<void> {
    const a = address.bytes;
    const owner = latin1(a);
    for (const slot of this.#writtenSlots.get(owner) ?? []) {
      this.#write(EVM_STORE, storageKey(a, Buffer.from(slot, 'latin1')), null);
    }
    this.#overlay.set(CLEARED_TAG + owner, { store: '', key: a, value: a });
  }

  /** Starts a nested checkpoint. */
  async checkpoint(): Promise<void> {
    this.#overlay.checkpoint();
  }

  /** Keeps the writes since the last checkpoint. */
  async commit(): Promise<void> {
    this.#overlay.commit();
  }

  /** Drops the writes since the last checkpoint. */
  async revert(): Promise<void> {
    this.#overlay.revert();
  }

  /** Open checkpoints (0 between transactions). */
  get checkpointDepth(): number {
    return this.#overlay.depth;
  }

  /** State roots are the app hash's business; the VM only reads this for pre-Byzantium receipts. */
  async getStateRoot(): Promise<Uint8Array> {
    return ZERO_HASH;
  }

  /** Not supported: state lives in the module stores, not in a trie. */
  async setStateRoot(): Promise<void> {
    throw new Error('setStateRoot is not supported: the state is read from the module stores');
  }

  /** No trie roots are kept. */
  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  /** Forgets cached base reads (an account's stay while it holds writes: they are compared with them). */
  clearCaches(): void {
    this.#baseCache.clear();
    this.#accounts.forEach((record, at) => {
      if (record.balance === undefined && record.nonce === undefined && record.codeHash === undefined) this.#accounts.delete(at);
    });
  }

  /**
   * Forgets every write and cached read and reads `view` from now on, so one VM built over
   * this state manager can serve many calls without being rebuilt.
   */
  reset(view: StateView): void {
    this.#view = view;
    this.#overlay.clear();
    this.#baseCache.clear();
    this.#accounts.clear();
    this.#writtenSlots.clear();
    this.#original.clear();
  }

  /** A fresh state manager over the same view, without this one's writes. */
  shallowCopy(): OverlayStateManager {
    return new OverlayStateManager(this.#view, this.#codes);
  }

  /**
   * The overlay as changesets: per store, the keys whose final value differs from the view,
   * sorted by key so every node emits the same bytes.
   */
  changesets(): NamedChangeset[] {
    const byStore = new Map<string, Array<{ id: string; key: Uint8Array; value: Uint8Array | null }>>();
    // forEach rather than for-of: an entries() iterator makes an [id, entry] array per key.
    const add = (store: string, id: string, key: Uint8Array, value: FieldValue): void => {
      let pairs = byStore.get(store);
      if (!pairs) byStore.set(store, (pairs = []));
      pairs.push({ id, key, value });
    };
    this.#overlay.entries.forEach((entry, id) => {
      if (id[0] === CLEARED_TAG) return;
      if (bytesEqual(entry.value, this.#base(id, entry.store, entry.key))) return;
      add(entry.store, id, entry.key, entry.value);
    });
    // Written account fields, under the ids and keys the overlay would give them.
    this.#accounts.forEach((record) => {
      const { at, balance, nonce, codeHash } = record;
      if (balance === undefined && nonce === undefined && codeHash === undefined) return;
      const a = Buffer.from(at, 'latin1');
      if (balance !== undefined && !bytesEqual(balance, record.baseBalance)) add(BANK_STORE, BALANCE_ID + at, balanceKey(a), balance);
      if (nonce !== undefined && !bytesEqual(nonce, record.baseNonce)) add(EVM_STORE, NONCE_ID + at, nonceKey(a), nonce);
      if (codeHash !== undefined && !bytesEqual(codeHash, record.baseCodeHash)) add(EVM_STORE, CODE_HASH_ID + at, codeHashKey(a), codeHash);
    });
    const out: NamedChangeset[] = [];
    for (const name of [...byStore.keys()].sort()) {
      const pairs = byStore.get(name)!;
      // Within a store every id is one tag character and the key in latin1, a code unit per
      // byte: comparing ids orders the keys bytewise, without a native call per comparison.
      pairs.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      out.push({ name, pairs });
    }
    return out;
  }
}
