/**
 * Decoding and stateful checks of a raw transaction, shared by block execution (invalid txs
 * are skipped) and mempool admission (invalid txs are refused), with geth's error wording.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Capability, createTxFromRLP, getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';

import type { SenderRecovery, RecoveryItem } from '../store/index.js';
import { recoveryItemOf } from './signing.js';

import {
  FeeBelowBaseFeeError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  InvalidSignatureError,
  InvalidTxEncodingError,
  NonceTooHighError,
  NonceTooLowError,
  TipAboveFeeCapError,
  UnsupportedTxTypeError,
  WrongChainIdError,
} from './errors.js';
import { decodeUint } from './keys.js';
import { recoveryClock } from './recovery-clock.js';
import { keccak256Memo } from '../util/keccak.js';

/** A decoded, signature-checked transaction. */
export interface DecodedTx {
  tx: TypedTransaction;
  /** keccak256 of the raw bytes. */
  hash: Uint8Array;
  sender: Address;
  type: number;
  nonce: bigint;
  gasLimit: bigint;
  /** gasPrice of legacy / 2930 txs, maxFeePerGas of 1559 / 7702 txs. */
  maxFeePerGas: bigint;
  /** Equal to maxFeePerGas for legacy / 2930 txs. */
  maxPriorityFeePerGas: bigint;
  value: bigint;
}

/** What the stateful checks need of an account. */
export interface SenderState {
  nonce: bigint;
  balance: bigint;
}

const BLOB_TX_TYPE = 3;

/** The chain id a raw transaction is signed for (undefined for a pre-EIP-155 legacy tx). */
export function rawChainId(raw: Uint8Array): bigint | undefined {
  if (raw.length === 0) throw new InvalidTxEncodingError('empty input');
  const typed = raw[0]! < 0xc0;
  const fields = RLP.decode(typed ? raw.subarray(1) : raw);
  if (!Array.isArray(fields)) throw new InvalidTxEncodingError('the payload is not an RLP list');
  if (typed) {
    const id = fields[0];
    if (!(id instanceof Uint8Array)) throw new InvalidTxEncodingError('chain id is not a byte string');
    return decodeUint(id);
  }
  const v = fields[6];
  if (!(v instanceof Uint8Array)) throw new InvalidTxEncodingError('legacy transaction without v');
  const vNum = decodeUint(v);
  return vNum >= 35n ? (vNum - 35n) / 2n : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Decodes `raw` and checks its chain id, type and signature form, leaving the sender to recover.
 * The transaction is left unfrozen so that completeTx can tell it its sender before freezing it.
 * @ethereumjs refuses a chain id other than the Common's itself, so the raw chain id is read
 * (a second RLP decode) only when decoding fails, to give that refusal its own error.
 */
function parseTx(raw: Uint8Array, common: Common): TypedTransaction {
  if (raw.length > 0 && raw[0] === BLOB_TX_TYPE) throw new UnsupportedTxTypeError(BLOB_TX_TYPE);
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common, freeze: false });
  } catch (error) {
    let chainId: bigint | undefined;
    try {
      chainId = rawChainId(raw);
    } catch (undecodable) {
      if (undecodable instanceof InvalidTxEncodingError) throw undecodable;
      throw new InvalidTxEncodingError(message(undecodable));
    }
    const expected = common.chainId();
    if (chainId !== undefined && chainId !== expected) throw new WrongChainIdError(expected, chainId);
    const text = message(error);
    if (/signature|s-value|v value/i.test(text)) throw new InvalidSignatureError(text);
    if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/i.test(text)) {
      const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
      throw new TipAboveFeeCapError('(unrecovered)', decodeUint(fields[2]), decodeUint(fields[3]));
    }
    throw new InvalidTxEncodingError(text);
  }
  if (!tx.isSigned()) throw new InvalidSignatureError('transaction is not signed');
  return tx;
}

/** The sender recovered on this thread, with @ethereumjs's checks and error texts. */
function senderHere(tx: TypedTransaction): Address {
  const recovering = performance.now();
  try {
    return tx.getSenderAddress();
  } catch (error) {
    throw new InvalidSignatureError(message(error));
  } finally {
    recoveryClock.seconds += (performance.now() - recovering) / 1000;
  }
}

/**
 * The fee checks that need the sender, and the DecodedTx; the tx is told its sender and its
 * hash, then frozen.
 */
function completeTx(tx: TypedTransaction, raw: Uint8Array, sender: Address): DecodedTx {
  // The VM asks the tx for its sender again when it runs it; the answer is already known.
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender });
  // A decoded tx re-encodes to exactly `raw` (@ethereumjs accepts canonical RLP only), so its
  // hash is keccak256(raw); set in the cache a frozen tx answers hash() from, it spares
  // @ethereumjs the re-encoding hash() would otherwise do.
  (tx as unknown as { cache: { hash?: Uint8Array } }).cache.hash = keccak256Memo(raw);
  // Frozen, as @ethereumjs leaves a decoded tx: its hash is then cached on first use.
  Object.freeze(tx);
  const is1559 = tx.supports(Capability.EIP1559FeeMarket);
  const fees = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
  const maxFeePerGas = is1559 ? fees.maxFeePerGas! : fees.gasPrice!;
  const maxPriorityFeePerGas = is1559 ? fees.maxPriorityFeePerGas! : fees.gasPrice!;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw new TipAboveFeeCapError(sender.toString(), maxPriorityFeePerGas, maxFeePerGas);
  }
  return {
    tx,
    hash: tx.hash(),
    sender,
    type: tx.type,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    maxFeePerGas,
    maxPriorityFeePerGas,
    value: tx.value,
  };
}

/** Decodes `raw`, checks its chain id, type and fee fields and recovers the sender. */
export function decodeTx(raw: Uint8Array, common: Common): DecodedTx {
  const tx = parseTx(raw, common);
  return completeTx(tx, raw, senderHere(tx));
}

/** A batch item's outcome: the decoded tx, or why it cannot be (the error decodeTx would throw). */
export type BatchDecoded = { ok: true; decoded: DecodedTx } | { ok: false; error: unknown };

/** Below this many signatures a batch is recovered on the calling thread: the hop costs more. */
const NATIVE_BATCH_MIN = 4;

/**
 * decodeTx for many transactions, their senders recovered in one native batch across the
 * pool's threads. Every item gets exactly what decodeTx gives it: a signature the fast path
 * cannot take (high s, an odd v, no key recovered) is recovered on this thread again, which
 * yields decodeTx's own result or error text.
 */
export async function decodeTxs(raws: readonly Uint8Array[], common: Common, recovery: SenderRecovery): Promise<BatchDecoded[]> {
  const out = new Array<BatchDecoded>(raws.length);
  const parsed: Array<{ index: number; tx: TypedTransaction }> = [];
  const items: RecoveryItem[] = [];
  const slow: Array<{ index: number; tx: TypedTransaction }> = [];
  raws.forEach((raw, index) => {
    try {
      const tx = parseTx(raw, common);
      const item = recoveryItemOf(tx, raw);
      if (item) {
        parsed.push({ index, tx });
        items.push(item);
      } else {
        slow.push({ index, tx });
      }
    } catch (error) {
      out[index] = { ok: false, error };
    }
  });
  const senders = items.length >= NATIVE_BATCH_MIN ? await recovery.recover(items) : recovery.recoverSync(items);
  const finish = (index: number, tx: TypedTransaction, sender: Uint8Array | undefined): void => {
    try {
      out[index] = { ok: true, decoded: completeTx(tx, raws[index]!, sender ? new Address(sender) : senderHere(tx)) };
    } catch (error) {
      out[index] = { ok: false, error };
    }
  };
  parsed.forEach(({ index, tx }, i) => finish(index, tx, senders[i]));
  for (const { index, tx } of slow) finish(index, tx, undefined);
  return out;
}

/** The least gas limit the tx may carry: intrinsic gas, or the EIP-7623 calldata floor if higher. */
export function minimumGas(decoded: DecodedTx): bigint {
  const intrinsic = decoded.tx.getIntrinsicGas();
  const floor = getCalldataFloorGas(decoded.tx, decoded.sender);
  return intrinsic > floor ? intrinsic : floor;
}

/** The fee per gas the sender pays at `baseFee`. */
export function effectiveGasPrice(decoded: DecodedTx, baseFee: bigint): bigint {
  const tipped = baseFee + decoded.maxPriorityFeePerGas;
  return tipped < decoded.maxFeePerGas ? tipped : decoded.maxFeePerGas;
}

/** How strictly the nonce is compared with the sender's state. */
export type NoncePolicy = 'exact' | 'not-below';

/**
 * Stateless fee and gas checks plus the sender checks against `state`: nonce (exact for
 * execution, at least the state nonce for the mempool), gas × fee cap + value ≤ balance.
 */
export function checkTx(decoded: DecodedTx, state: SenderState, baseFee: bigint, nonces: NoncePolicy): void {
  const address = decoded.sender.toString();
  const want = minimumGas(decoded);
  if (decoded.gasLimit < want) throw new IntrinsicGasTooLowError(decoded.gasLimit, want);
  if (decoded.maxFeePerGas < baseFee) throw new FeeBelowBaseFeeError(address, decoded.maxFeePerGas, baseFee);
  if (decoded.nonce < state.nonce) throw new NonceTooLowError(address, decoded.nonce, state.nonce);
  if (nonces === 'exact' && decoded.nonce > state.nonce) throw new NonceTooHighError(address, decoded.nonce, state.nonce);
  const cost = decoded.gasLimit * decoded.maxFeePerGas + decoded.value;
  if (state.balance < cost) throw new InsufficientFundsError(address, state.balance, cost);
}
