/**
 * What sender recovery needs of a signed transaction: its signing hash, r ‖ s and the
 * recovery id, for the native batch (store/sender-recovery.ts).
 */
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { SECP256K1_ORDER_DIV_2, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';

import type { RecoveryItem } from '../store/index.js';
import { recoveryId } from './crypto.js';

const MAX_256 = (1n << 256n) - 1n;

/**
 * The recovery input of a signed `tx`, or undefined when its signature needs @ethereumjs's own
 * path to be refused with the exact text (a high s, a v that is neither parity, r or s too long).
 */
export function recoveryItemOf(tx: TypedTransaction): RecoveryItem | undefined {
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) return undefined;
  if (s > SECP256K1_ORDER_DIV_2 || r > MAX_256) return undefined;
  let id: number;
  try {
    id = recoveryId(v, tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined);
  } catch {
    return undefined;
  }
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(bigIntToBytes(r), 32), 0);
  signature.set(setLengthLeft(bigIntToBytes(s), 32), 32);
  return { hash: tx.getMessageToVerifySignature(), signature, recoveryId: id };
}
