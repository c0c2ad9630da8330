/** geth's `prestateTracer`: the accounts a transaction touched as they were before it, or (diffMode) what changed. */
import { generateAddress, generateAddress2, createAddressFromString } from '@ethereumjs/util';

import { TracerConfigError } from './errors.js';
import { booleanOption, type TracerConfig } from './config.js';
import { keccak256 } from '../util/keccak.js';
import { bytesHex, memorySlice, minimalBytes, quantity, word, wordAddress } from './hex.js';
import type { Hex, JsonValue, OpcodeStep, StateReader, Tracer, TxEnd, TxStart } from './types.js';

/** Options of prestateTracer. */
export interface PrestateTracerConfig {
  diffMode: boolean;
  disableCode: boolean;
  disableStorage: boolean;
  includeEmpty: boolean;
}

/** Parses prestateTracer's `tracerConfig`. */
export function prestateTracerConfig(config: TracerConfig): PrestateTracerConfig {
  const parsed = {
    diffMode: booleanOption(config, 'diffMode', 'prestateTracerConfig'),
    disableCode: booleanOption(config, 'disableCode', 'prestateTracerConfig'),
    disableStorage: booleanOption(config, 'disableStorage', 'prestateTracerConfig'),
    includeEmpty: booleanOption(config, 'includeEmpty', 'prestateTracerConfig'),
  };
  if (parsed.diffMode && parsed.includeEmpty) throw new TracerConfigError('cannot use diffMode with includeEmpty');
  return parsed;
}

/** An account as first seen. */
interface AccountState {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Hex | undefined;
  storage: Map<Hex, Hex>;
  /** Nothing in it before the transaction (no balance, nonce or code). */
  empty: boolean;
}

const ZERO_WORD = word(0n);
const EMPTY_CODE_HASH = bytesHex(keccak256(new Uint8Array()));
const DELEGATION_PREFIX = '0xef0100';
const OP = { SLOAD: 0x54, SSTORE: 0x55, BALANCE: 0x31, EXTCODESIZE: 0x3b, EXTCODECOPY: 0x3c, EXTCODEHASH: 0x3f, SELFDESTRUCT: 0xff, CALL: 0xf1, CALLCODE: 0xf2, DELEGATECALL: 0xf4, STATICCALL: 0xfa, CREATE: 0xf0, CREATE2: 0xf5 } as const;
const ACCOUNT_OPS: ReadonlySet<number> = new Set([OP.BALANCE, OP.EXTCODESIZE, OP.EXTCODECOPY, OP.EXTCODEHASH, OP.SELFDESTRUCT]);
const CALL_OPS: ReadonlySet<number> = new Set([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL]);

function sortedEntries<V>(map: Map<Hex, V>): Array<[Hex, V]> {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The EIP-7702 delegate named by `code`, if it is a delegation designator. */
function delegateOf(code: Uint8Array): Hex | undefined {
  const text = bytesHex(code);
  return code.length === 23 && text.startsWith(DELEGATION_PREFIX) ? (`0x${text.slice(8)}` as Hex) : undefined;
}

/** geth's prestateTracer (default and diff mode). */
export class PrestateTracer implements Tracer {
  private readonly pre = new Map<Hex, AccountState>();
  private post = new Map<Hex, { [key: string]: JsonValue }>();
  private prague = false;

  constructor(readonly config: PrestateTracerConfig) {}

  async onTxStart(tx: TxStart): Promise<void> {
    this.prague = tx.rules.prague;
    const to = tx.to ?? tx.createdAddress;
    await this.lookupAccount(tx.state, tx.from);
    if (to !== undefined) {
      await this.lookupAccount(tx.state, to);
      await this.lookupDelegate(tx.state, to);
    }
    await this.lookupAccount(tx.state, tx.coinbase);
    for (const authority of tx.authorities) await this.lookupAccount(tx.state, authority);
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    const { op, stack, state } = step;
    const top = (i: number): bigint => stack[stack.length - 1 - i] ?? 0n;
    if (stack.length >= 1 && (op === OP.SLOAD || op === OP.SSTORE)) {
      await this.lookupStorage(state, step.address, word(top(0)));
    } else if (stack.length >= 1 && ACCOUNT_OPS.has(op)) {
      await this.lookupAccount(state, wordAddress(top(0)));
    } else if (stack.length >= 5 && CALL_OPS.has(op)) {
      const target = wordAddress(top(1));
      await this.lookupAccount(state, target);
      await this.lookupDelegate(state, target);
    } else if (op === OP.CREATE) {
      const nonce = await state.nonce(step.address);
      await this.lookupAccount(state, bytesHex(generateAddress(createAddressFromString(step.address).bytes, minimalBytes(nonce))));
    } else if (stack.length >= 4 && op === OP.CREATE2) {
      const init = memorySlice(step.memory, top(1), top(2));
      const salt = Buffer.from(word(top(3)).slice(2), 'hex');
      await this.lookupAccount(state, bytesHex(generateAddress2(createAddressFromString(step.address).bytes, salt, init)));
    }
  }

  async onTxEnd(end: TxEnd): Promise<void> {
    if (this.config.diffMode) await this.computeDiff(end.state);
    if (this.config.includeEmpty) return;
    for (const [address, account] of this.pre) if (account.empty) this.pre.delete(address);
  }

  result(): JsonValue {
    const pre: { [key: string]: JsonValue } = {};
    for (const [address, account] of sortedEntries(this.pre)) pre[address] = this.accountJson(account);
    if (!this.config.diffMode) return pre;
    const post: { [key: string]: JsonValue } = {};
    for (const [address, account] of sortedEntries(this.post)) post[address] = account;
    return { post, pre };
  }

  private accountJson(account: AccountState): { [key: string]: JsonValue } {
    const out: { [key: string]: JsonValue } = { balance: quantity(account.balance) };
    if (account.code.length > 0 && !this.config.disableCode) out.code = bytesHex(account.code);
    if (account.codeHash !== undefined) out.codeHash = account.codeHash;
    if (account.nonce > 0n) out.nonce = Number(account.nonce);
    const slots = sortedEntries(account.storage);
    if (!this.config.disableStorage && slots.length > 0) out.storage = Object.fromEntries(slots);
    return out;
  }

  private async computeDiff(state: StateReader): Promise<void> {
    for (const [address, before] of this.pre) {
      // A destroyed account keeps its pre-image and has no post entry.
      if (!before.empty && !(await state.exists(address))) continue;
      const after: { [key: string]: JsonValue } = {};
      let modified = false;
      const balance = await state.balance(address);
      if (balance !== before.balance) {
        modified = true;
        after.balance = quantity(balance);
      }
      const code = await state.code(address);
      const codeHash = code.length === 0 ? undefined : bytesHex(keccak256(code));
      if (!this.config.disableCode && bytesHex(code) !== bytesHex(before.code)) {
        modified = true;
        after.code = bytesHex(code);
      }
      if (codeHash !== before.codeHash) {
        modified = true;
        after.codeHash = codeHash ?? EMPTY_CODE_HASH;
      }
      const nonce = await state.nonce(address);
      if (nonce !== before.nonce) {
        modified = true;
        after.nonce = Number(nonce);
      }
      if (!this.config.disableStorage) {
        const changed: Array<[Hex, Hex]> = [];
        for (const [slot, value] of [...before.storage]) {
          const now = await state.storage(address, slot);
          if (value === ZERO_WORD || now === value) {
            before.storage.delete(slot);
            if (now === value) continue;
          }
          modified = true;
          if (now !== ZERO_WORD) changed.push([slot, now]);
        }
        changed.sort(([a], [b]) => (a < b ? -1 : 1));
        if (changed.length > 0) after.storage = Object.fromEntries(changed);
      }
      if (modified) this.post.set(address, orderPost(after));
      else this.pre.delete(address);
    }
  }

  private async lookupAccount(state: StateReader, address: Hex): Promise<void> {
    if (this.pre.has(address)) return;
    const [balance, nonce, code] = await Promise.all([state.balance(address), state.nonce(address), state.code(address)]);
    this.pre.set(address, {
      balance,
      nonce,
      code,
      codeHash: code.length === 0 ? undefined : bytesHex(keccak256(code)),
      storage: new Map(),
      empty: balance === 0n && nonce === 0n && code.length === 0,
    });
  }

  private async lookupDelegate(state: StateReader, address: Hex): Promise<void> {
    if (!this.prague) return;
    const delegate = delegateOf(await state.code(address));
    if (delegate !== undefined) await this.lookupAccount(state, delegate);
  }

  private async lookupStorage(state: StateReader, address: Hex, slot: Hex): Promise<void> {
    await this.lookupAccount(state, address);
    const account = this.pre.get(address);
    if (account === undefined || account.storage.has(slot)) return;
    account.storage.set(slot, await state.storage(address, slot));
  }
}

/** Post entries in geth's field order: balance, code, codeHash, nonce, storage. */
function orderPost(account: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const key of ['balance', 'code', 'codeHash', 'nonce', 'storage']) {
    const value = account[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
