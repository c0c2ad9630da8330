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
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';

import type { OverlayStateManager } from './state-manager.js';
import { effectiveGasPrice, type DecodedTx } from './validate.js';

/** The gas of a plain transfer. */
export const TRANSFER_GAS = 21_000n;

/** Which recipients are precompiles at `common`'s fork (they run code). */
export function precompileSet(common: Common): ReadonlySet<string> {
  return new Set([...getActivePrecompiles(common).keys()].map((key) => key.replace(/^0x/, '').toLowerCase()));
}

function hasCode(account: Account | undefined): boolean {
  return account !== undefined && !Buffer.from(account.codeHash).equals(KECCAK256_NULL);
}

/**
 * Whether `decoded` is a plain transfer on `state`: types 0–2 without data or access list,
 * a recipient, and neither side holding code (a delegated EOA holds code too).
 */
export function isPlainTransfer(decoded: DecodedTx, state: OverlayStateManager, precompiles: ReadonlySet<string>): boolean {
  const tx = decoded.tx as typeof decoded.tx & { accessList?: unknown[] };
  if (decoded.type > 2 || tx.data.length > 0 || tx.to === undefined) return false;
  if ((tx.accessList?.length ?? 0) > 0) return false;
  if (precompiles.has(Buffer.from(tx.to.bytes).toString('hex'))) return false;
  return !hasCode(state.getAccountSync(tx.to)) && !hasCode(state.getAccountSync(decoded.sender));
}

/**
 * Applies a plain transfer that passed the sender checks (nonce, funds for gas limit × fee
 * cap + value) and returns the effective gas price it paid.
 */
export async function applyPlainTransfer(state: OverlayStateManager, decoded: DecodedTx, coinbase: Address, baseFee: bigint): Promise<bigint> {
  const price = effectiveGasPrice(decoded, baseFee);
  const to = decoded.tx.to as Address;
  const sender = state.getAccountSync(decoded.sender) ?? new Account();
  sender.nonce += 1n;
  sender.balance -= TRANSFER_GAS * price + decoded.value;
  await state.putAccount(decoded.sender, sender);

  if (decoded.value > 0n) {
    const recipient = state.getAccountSync(to) ?? new Account();
    recipient.balance += decoded.value;
    await state.putAccount(to, recipient);
  }

  const tip = TRANSFER_GAS * (price - baseFee);
  if (tip > 0n) {
    const miner = state.getAccountSync(coinbase) ?? new Account();
    miner.balance += tip;
    await state.putAccount(coinbase, miner);
  }
  return price;
}
