/**
 * Plain value transfers without the interpreter. A transfer with no data, no access or
 * authorization list, between accounts without code and not to a precompile, always makes the
 * same three changes under runTx: the sender pays 21,000 gas at the effective price plus the
 * value and its nonce grows, the recipient gains the value, and the coinbase gains the tip
 * (base fee burned); an account that would be left empty is not created (EIP-161). Applying
 * them directly costs a few state reads instead of a VM transaction, which is most of a
 * transfer-heavy block. test/evm/plain-transfer.test.ts checks the two paths agree.
 */
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { Common } from '@ethereumjs/common';
import { Account, KECCAK256_NULL, type Address } from '@ethereumjs/util';

import { keccak256Many } from '../store/index.js';
import { GrowingBuffer } from '../util/growing-buffer.js';
import { rlpListHeader, uintBytes } from '../util/rlp.js';
import type { OverlayStateManager } from './state-manager.js';
import { effectiveGasPrice, type DecodedTx } from './validate.js';

/** The gas of a plain transfer. */
export const TRANSFER_GAS = 21_000n;

/** Which recipients are precompiles at `common`'s fork (they run code). */
export function precompileSet(common: Common): ReadonlySet<string> {
  return new Set([...getActivePrecompiles(common).keys()].map((key) => key.replace(/^0x/, '').toLowerCase()));
}

function hasCode(account: Account | undefined): boolean {
  return account !== undefined && Buffer.compare(account.codeHash, KECCAK256_NULL) !== 0;
}

/** The two accounts of a plain transfer, as read before it applies (undefined = absent). */
export interface TransferParties {
  sender: Account | undefined;
  recipient: Account | undefined;
}

/**
 * The parties of `decoded` when it is a plain transfer on `state` (types 0–2 without data or
 * access list, a recipient, and neither side holding code; a delegated EOA holds code too),
 * otherwise undefined. `sender` is the sender's account as the caller already read it.
 */
export function plainTransferParties(decoded: DecodedTx, sender: Account | undefined, state: OverlayStateManager, precompiles: ReadonlySet<string>): TransferParties | undefined {
  const to = decoded.to;
  if (!decoded.transferShape || to === undefined) return undefined;
  // Every precompile address starts with zero bytes: most recipients skip the lookup's hex.
  if (to.bytes[0] === 0 && precompiles.has(Buffer.from(to.bytes).toString('hex'))) return undefined;
  if (hasCode(sender)) return undefined;
  const recipient = state.getAccountSync(to);
  return hasCode(recipient) ? undefined : { sender, recipient };
}

/**
 * The coinbase's tips from plain transfers, credited once rather than after every transfer:
 * additions commute, so the final balance is the same as long as nothing reads the coinbase
 * in between. The executor credits them before anything that might: an interpreted
 * transaction, a transfer from or to the coinbase, and the end of the block.
 */
export class CoinbaseTips {
  #pending = 0n;

  constructor(readonly coinbase: Address) {}

  /** Adds a transfer's tip. */
  add(tip: bigint): void {
    this.#pending += tip;
  }

  /** Whether `address` is the coinbase, whose balance must be credited before it is read. */
  touches(address: Address | undefined): boolean {
    return address !== undefined && address.equals(this.coinbase);
  }

  /** Credits what is pending to the coinbase. */
  credit(state: OverlayStateManager): void {
    if (this.#pending === 0n) return;
    const miner = state.getAccountSync(this.coinbase);
    state.putBalanceSync(this.coinbase, (miner?.balance ?? 0n) + this.#pending);
    this.#pending = 0n;
  }
}

/**
 * Applies a plain transfer that passed the sender checks (nonce, funds for gas limit × fee
 * cap + value) and returns the effective gas price it paid; the coinbase's tip goes to `tips`.
 * `parties` are the accounts as read just before; they are updated in place. Only the fields
 * a transfer changes are written: the sender's nonce and balance, the recipient's balance.
 */
export function applyPlainTransfer(state: OverlayStateManager, decoded: DecodedTx, parties: TransferParties, tips: CoinbaseTips, baseFee: bigint): bigint {
  const price = effectiveGasPrice(decoded, baseFee);
  const to = decoded.to!;
  const sender = parties.sender ?? new Account();
  sender.nonce += 1n;
  sender.balance -= TRANSFER_GAS * price + decoded.value;
  state.putNonceAndBalanceSync(decoded.sender, sender.nonce, sender.balance);

  if (decoded.value > 0n) {
    // A transfer to oneself reads the sender as just written.
    const recipient = (to.equals(decoded.sender) ? state.getAccountSync(to) : parties.recipient) ?? new Account();
    recipient.balance += decoded.value;
    state.putBalanceSync(to, recipient.balance);
  }

  const tip = TRANSFER_GAS * (price - baseFee);
  if (tip > 0n) tips.add(tip);
  return price;
}

const BLOOM_BYTES = 256;
/** Transfer receipts a block's buffer starts with room for (it doubles when full). */
const INITIAL_RECEIPTS = 64;
/** Bytes of a transfer receipt's list body besides the gas: status, the gas string's header, the empty bloom (3-byte header, 256 zeros) and the empty logs list. */
const RECEIPT_FIXED_BYTES = 1 + 1 + 3 + BLOOM_BYTES + 1;

/**
 * The consensus receipts of a block's successful plain transfers — `type ‖ rlp([1,
 * cumulativeGasUsed, empty bloom, []])`, no type byte for a legacy tx — written straight into
 * one buffer and hashed together once the block is done: the generic encoder builds the same
 * bytes from a dozen arrays, and one native call hashes them all.
 */
export class TransferReceipts {
  #packed: GrowingBuffer | undefined; // made on the first transfer: most calls execute none
  readonly #lengths: number[] = [];

  /** Adds the receipt of a transfer of `type` ending at `cumulativeGasUsed`; returns its index in hashes(). */
  add(type: number, cumulativeGasUsed: bigint): number {
    // The gas as an RLP string (cumulative gas is at least 21,000, so never a single byte).
    const gas = uintBytes(cumulativeGasUsed);
    const header = rlpListHeader(RECEIPT_FIXED_BYTES + gas.length);
    const length = (type !== 0 ? 1 : 0) + header.length + RECEIPT_FIXED_BYTES + gas.length;
    const packed = (this.#packed ??= new GrowingBuffer(INITIAL_RECEIPTS * length));
    let at = packed.claim(length);
    const out = packed.buffer;
    if (type !== 0) out[at++] = type;
    out.set(header, at);
    at += header.length;
    out[at++] = 0x01;
    out[at++] = 0x80 + gas.length;
    out.set(gas, at);
    at += gas.length;
    out[at++] = 0xb9;
    out[at++] = BLOOM_BYTES >> 8;
    out[at++] = BLOOM_BYTES & 0xff;
    out.fill(0, at, at + BLOOM_BYTES);
    out[at + BLOOM_BYTES] = 0xc0;
    return this.#lengths.push(length) - 1;
  }

  /** keccak256 of each receipt added, 32 bytes apiece in the order added. */
  hashes(): Buffer {
    return keccak256Many(this.#packed?.bytes() ?? new Uint8Array(0), Uint32Array.from(this.#lengths));
  }
}
