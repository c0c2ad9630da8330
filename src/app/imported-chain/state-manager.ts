/**
 * The state manager imported Ethereum blocks run on: the node's OverlayStateManager plus
 * Ethereum's empty accounts. Before EIP-161 (Spurious Dragon) an account with no balance,
 * nonce or code still exists (a contract under construction, a zero-value transfer's
 * recipient), and existence changes gas and EXTCODEHASH. The module stores have no account
 * record, so such an account is kept as a stored zero nonce, which the overlay already reads
 * as "the account exists".
 */
import type { AccountFields, Common, StateManagerInterface } from '@ethereumjs/common';
import { Hardfork } from '@ethereumjs/common';
import { Account, type Address } from '@ethereumjs/util';

import { EVM_STORE, encodeUint, nonceKey } from '../../evm/keys.js';
import { OverlayStateManager, type StateView } from '../../evm/state-manager.js';
import type { NamedChangeset } from '../../store/index.js';
import { mergeChangesets } from '../changesets.js';

const ZERO_NONCE = encodeUint(0n, 8);

/** An OverlayStateManager that keeps empty accounts in existence where Ethereum does. */
export class ImportedStateManager implements StateManagerInterface {
  readonly #inner: OverlayStateManager;
  readonly #view: StateView;
  readonly #createsEmptyAccounts: boolean;
  /** Address (hex) → whether it ends the block as an existing empty account. */
  #emptyAccounts = new Map<string, boolean>();
  readonly #saved: Array<Map<string, boolean>> = [];

  /** The pre-transaction storage values the EVM prices SSTORE with. */
  readonly originalStorageCache: OverlayStateManager['originalStorageCache'];

  private constructor(view: StateView, createsEmptyAccounts: boolean) {
    this.#view = view;
    this.#inner = new OverlayStateManager(view);
    this.#createsEmptyAccounts = createsEmptyAccounts;
    this.originalStorageCache = this.#inner.originalStorageCache;
  }

  /** A state manager reading `view` under the rules of `common`. */
  static over(view: StateView, common: Common): ImportedStateManager {
    return new ImportedStateManager(view, !common.gteHardfork(Hardfork.SpuriousDragon));
  }

  /** The account at `address`, including an existing empty one. */
  async getAccount(address: Address): Promise<Account | undefined> {
    const account = this.#inner.getAccountSync(address);
    if (account !== undefined) return account;
    return this.#emptyAccounts.get(address.toString()) === true ? new Account() : undefined;
  }

  /** Writes the account; an empty one stays in existence before EIP-161, or when it already existed. */
  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const keepsEmpty = account.isEmpty() && (this.#createsEmptyAccounts || (await this.getAccount(address)) !== undefined);
    await this.#inner.putAccount(address, account);
    this.#emptyAccounts.set(address.toString(), keepsEmpty);
  }

  /** Removes the account (and its emptiness marker). */
  async deleteAccount(address: Address): Promise<void> {
    await this.#inner.deleteAccount(address);
    this.#emptyAccounts.set(address.toString(), false);
  }

  /** Changes some fields of an account (creating it when absent). */
  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    await this.putAccount(address, account);
  }

  /** Sets the code of `address`. */
  putCode(address: Address, code: Uint8Array): Promise<void> {
    return this.#inner.putCode(address, code);
  }

  /** The code of `address`. */
  getCode(address: Address): Promise<Uint8Array> {
    return this.#inner.getCode(address);
  }

  /** The code size of `address`. */
  getCodeSize(address: Address): Promise<number> {
    return this.#inner.getCodeSize(address);
  }

  /** A storage value with leading zeros stripped. */
  getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    return this.#inner.getStorage(address, slot);
  }

  /** Sets a storage slot. */
  putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    return this.#inner.putStorage(address, slot, value);
  }

  /** Wipes the storage of `address`. */
  clearStorage(address: Address): Promise<void> {
    return this.#inner.clearStorage(address);
  }

  /** Starts a nested checkpoint. */
  async checkpoint(): Promise<void> {
    this.#saved.push(new Map(this.#emptyAccounts));
    await this.#inner.checkpoint();
  }

  /** Keeps the writes since the last checkpoint. */
  async commit(): Promise<void> {
    this.#saved.pop();
    await this.#inner.commit();
  }

  /** Drops the writes since the last checkpoint. */
  async revert(): Promise<void> {
    const saved = this.#saved.pop();
    if (saved !== undefined) this.#emptyAccounts = saved;
    await this.#inner.revert();
  }

  /** State roots are not computed (the node's commitment differs). */
  getStateRoot(): Promise<Uint8Array> {
    return this.#inner.getStateRoot();
  }

  /** Not supported: state lives in the module stores. */
  setStateRoot(): Promise<void> {
    return this.#inner.setStateRoot();
  }

  /** No trie roots are kept. */
  hasStateRoot(): Promise<boolean> {
    return this.#inner.hasStateRoot();
  }

  /** Forgets cached base reads. */
  clearCaches(): void {
    this.#inner.clearCaches();
  }

  /** A fresh state manager over the same view. */
  shallowCopy(): ImportedStateManager {
    return new ImportedStateManager(this.#view, this.#createsEmptyAccounts);
  }

  /** The block's writes as changesets, existing empty accounts recorded as a zero nonce. */
  changesets(): NamedChangeset[] {
    const markers = [...this.#emptyAccounts]
      .filter(([, exists]) => exists)
      .map(([hex]) => ({ key: nonceKey(Buffer.from(hex.slice(2), 'hex')), value: ZERO_NONCE as Uint8Array | null }));
    return mergeChangesets(this.#inner.changesets(), [{ name: EVM_STORE, pairs: markers }]);
  }
}
