/**
 * Decoding and stateful checks of a raw transaction, shared by block execution (invalid txs
 * are skipped) and mempool admission (invalid txs are refused), with geth's error wording.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Capability, TransactionType, createTxFromRLP, getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bigIntToUnpaddedBytes } from '@ethereumjs/util';

import { SignedMessageBatch, type RecoveredSenders, type RecoveryItem, type SenderRecovery } from '../store/index.js';
import { recoveryItemOf } from './signing.js';
import { decodeTransfer, signature, signingMessage, signingMessageLength, writeSignature, writeSigningMessage, type TransferFields } from './transfer-decoding.js';

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
import { ecdsaRecover } from './crypto.js';
import { decodeUint } from './keys.js';
import { timeRecovery } from './recovery-clock.js';
import { keccak256, keccak256Memo, rememberKeccak256 } from '../util/keccak.js';

/** A decoded, signature-checked transaction. */
export interface DecodedTx {
  /** The @ethereumjs transaction; a transfer decoded without it builds it on first use. */
  readonly tx: TypedTransaction;
  /** keccak256 of the raw bytes. */
  hash: Uint8Array;
  sender: Address;
  type: TransactionType;
  nonce: bigint;
  gasLimit: bigint;
  /** gasPrice of legacy / 2930 txs, maxFeePerGas of 1559 / 7702 txs. */
  maxFeePerGas: bigint;
  /** Equal to maxFeePerGas for legacy / 2930 txs. */
  maxPriorityFeePerGas: bigint;
  value: bigint;
  /** The recipient; undefined for a contract creation. */
  to: Address | undefined;
  /**
   * Types 0–2 with a recipient and neither calldata nor access list: a plain transfer unless
   * either side holds code or the recipient is a precompile. Its minimum gas is the base 21,000.
   */
  transferShape: boolean;
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
  return timeRecovery(() => {
    try {
      return tx.getSenderAddress();
    } catch (error) {
      throw new InvalidSignatureError(message(error));
    }
  });
}

/** Tells `tx` (decoded from `raw`) its sender and hash, then freezes it. */
function settleTx(tx: TypedTransaction, raw: Uint8Array, sender: Address): void {
  // The VM asks the tx for its sender again when it runs it; the answer is already known.
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender });
  // A decoded tx re-encodes to exactly `raw` (@ethereumjs accepts canonical RLP only), so its
  // hash is keccak256(raw); set in the cache a frozen tx answers hash() from, it spares
  // @ethereumjs the re-encoding hash() would otherwise do.
  (tx as unknown as { cache: { hash?: Uint8Array } }).cache.hash = keccak256Memo(raw);
  // Frozen, as @ethereumjs leaves a decoded tx: its hash is then cached on first use.
  Object.freeze(tx);
}

/**
 * The fee checks that need the sender, and the DecodedTx; the tx is told its sender and its
 * hash, then frozen.
 */
function completeTx(tx: TypedTransaction, raw: Uint8Array, sender: Address): DecodedTx {
  settleTx(tx, raw, sender);
  const is1559 = tx.supports(Capability.EIP1559FeeMarket);
  const fees = tx as unknown as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint };
  const maxFeePerGas = is1559 ? fees.maxFeePerGas! : fees.gasPrice!;
  const maxPriorityFeePerGas = is1559 ? fees.maxPriorityFeePerGas! : fees.gasPrice!;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw new TipAboveFeeCapError(sender.toString(), maxPriorityFeePerGas, maxFeePerGas);
  }
  const accessList = (tx as { accessList?: unknown[] }).accessList;
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
    to: tx.to,
    transferShape: tx.type <= 2 && tx.to !== undefined && tx.data.length === 0 && (accessList?.length ?? 0) === 0,
  };
}

/**
 * A type-2 transfer decoded from its bytes (transfer-decoding.ts). Its @ethereumjs
 * transaction is built only when something asks for it (an interpreted run, an RPC answer);
 * plain-transfer execution and admission never do.
 */
class TransferTx implements DecodedTx {
  readonly hash: Uint8Array;
  readonly type = TransactionType.FeeMarketEIP1559;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly value: bigint;
  readonly to: Address;
  readonly transferShape = true;
  readonly #raw: Uint8Array;
  readonly #common: Common;
  #tx: TypedTransaction | undefined;

  /** `hash` is keccak256(raw) when the caller has it already. */
  constructor(raw: Uint8Array, common: Common, fields: TransferFields, readonly sender: Address, hash?: Buffer) {
    this.#raw = raw;
    this.#common = common;
    if (hash) rememberKeccak256(raw, hash);
    this.hash = hash ?? keccak256Memo(raw);
    this.nonce = fields.nonce;
    this.gasLimit = fields.gasLimit;
    this.maxFeePerGas = fields.maxFeePerGas;
    this.maxPriorityFeePerGas = fields.maxPriorityFeePerGas;
    this.value = fields.value;
    this.to = new Address(raw.slice(fields.toStart, fields.toStart + 20));
  }

  get tx(): TypedTransaction {
    if (this.#tx === undefined) {
      const tx = parseTx(this.#raw, this.#common);
      settleTx(tx, this.#raw, this.sender);
      this.#tx = tx;
    }
    return this.#tx;
  }
}

/**
 * The chain id as a transfer encodes it, when transfers on `common` may be decoded from their
 * bytes: EIP-1559 on, and none of the EIPs that make a transfer's validity or gas depend on
 * more than its bytes (EIP-7825's gas cap, EIP-2780's recipient costs).
 */
const transferChainIds = new WeakMap<Common, Uint8Array | null>();

function transferChainId(common: Common): Uint8Array | null {
  let id = transferChainIds.get(common);
  if (id === undefined) {
    const fast = common.isActivatedEIP(1559) && !common.isActivatedEIP(7825) && !common.isActivatedEIP(2780);
    id = fast ? bigIntToUnpaddedBytes(common.chainId()) : null;
    transferChainIds.set(common, id);
  }
  return id;
}

/** The fields of `raw` when it is a transfer the fast decoder takes on `common`. */
function transferFields(raw: Uint8Array, common: Common): TransferFields | undefined {
  const chainId = transferChainId(common);
  return chainId === null ? undefined : decodeTransfer(raw, chainId);
}

/**
 * The address whose key signed the item `itemOf` makes, recovered on this thread (making the
 * item counts as recovery time); undefined when there is no item or no key recovers.
 */
function senderHereOf(itemOf: () => RecoveryItem | undefined): Address | undefined {
  return timeRecovery(() => {
    try {
      const item = itemOf();
      if (item === undefined) return undefined;
      const publicKey = ecdsaRecover(item.signature, item.recoveryId, item.hash);
      return new Address(keccak256(publicKey.subarray(1)).subarray(12));
    } catch {
      return undefined;
    }
  });
}

/** The sender of a transfer's signature recovered on this thread; undefined when none recovers. */
function transferSender(raw: Uint8Array, fields: TransferFields): Address | undefined {
  return senderHereOf(() => ({ signature: signature(raw, fields), recoveryId: fields.recoveryId, hash: keccak256(signingMessage(raw, fields)) }));
}

/**
 * The sender of `tx` recovered on this thread from its signing hash taken from `raw`; undefined
 * when the signature is not one the batch path takes either (high s, an odd v, no key
 * recovered), for @ethereumjs to recover or refuse with its own words.
 */
function itemSender(tx: TypedTransaction, raw: Uint8Array): Address | undefined {
  return senderHereOf(() => recoveryItemOf(tx, raw));
}

/** Decodes `raw`, checks its chain id, type and fee fields and recovers the sender. */
export function decodeTx(raw: Uint8Array, common: Common): DecodedTx {
  const fields = transferFields(raw, common);
  const sender = fields && transferSender(raw, fields);
  if (fields && sender) return new TransferTx(raw, common, fields, sender);
  const tx = parseTx(raw, common);
  return completeTx(tx, raw, itemSender(tx, raw) ?? senderHere(tx));
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
  const transfers: Array<{ index: number; fields: TransferFields }> = [];
  const parsed: Array<{ index: number; tx: TypedTransaction }> = [];
  const items: RecoveryItem[] = [];
  const slow: Array<{ index: number; tx: TypedTransaction }> = [];
  raws.forEach((raw, index) => {
    const fields = transferFields(raw, common);
    if (fields) {
      transfers.push({ index, fields });
      return;
    }
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
  const [transferSenders, senders] = await Promise.all([recoverTransfers(transfers, raws, recovery), recoverItems(items, recovery)]);
  const finish = (index: number, tx: TypedTransaction, sender: Uint8Array | undefined): void => {
    try {
      out[index] = { ok: true, decoded: completeTx(tx, raws[index]!, sender ? new Address(sender) : senderHere(tx)) };
    } catch (error) {
      out[index] = { ok: false, error };
    }
  };
  transfers.forEach(({ index, fields }, i) => {
    const { sender, rawHash } = transferSenders[i]!;
    if (sender) {
      out[index] = { ok: true, decoded: new TransferTx(raws[index]!, common, fields, new Address(sender), rawHash) };
      return;
    }
    // No key recovers: @ethereumjs decodes it again and says why.
    try {
      finish(index, parseTx(raws[index]!, common), undefined);
    } catch (error) {
      out[index] = { ok: false, error };
    }
  });
  parsed.forEach(({ index, tx }, i) => finish(index, tx, senders[i]));
  for (const { index, tx } of slow) finish(index, tx, undefined);
  return out;
}

/** The senders of transfers, with their tx hashes: a large batch is hashed and recovered on the pool. */
async function recoverTransfers(
  transfers: ReadonlyArray<{ index: number; fields: TransferFields }>,
  raws: readonly Uint8Array[],
  recovery: SenderRecovery,
): Promise<Array<{ sender: Uint8Array | undefined; rawHash: Buffer | undefined }>> {
  if (transfers.length >= NATIVE_BATCH_MIN) {
    // About 115 bytes of transfer and 85 of message each, besides the id and signature.
    const batch = new SignedMessageBatch(transfers.length * 270);
    for (const { index, fields } of transfers) {
      const raw = raws[index]!;
      const at = batch.add(fields.recoveryId, signingMessageLength(fields), raw);
      writeSignature(raw, fields, batch.buffer, at);
      writeSigningMessage(raw, fields, batch.buffer, at + 64);
    }
    return recovery.recoverMessages(batch);
  }
  const items = transfers.map(({ index, fields }) => ({
    hash: keccak256(signingMessage(raws[index]!, fields)),
    signature: signature(raws[index]!, fields),
    recoveryId: fields.recoveryId,
  }));
  return recovery.recoverSync(items).map((sender) => ({ sender, rawHash: undefined }));
}

/** recovery's answer for `items`: across the pool for a batch worth the hop, else here. */
function recoverItems(items: readonly RecoveryItem[], recovery: SenderRecovery): Promise<RecoveredSenders> | RecoveredSenders {
  return items.length >= NATIVE_BATCH_MIN ? recovery.recover(items) : recovery.recoverSync(items);
}

/** The gas every transaction pays before its calldata, access list or creation (txGas). */
const BASE_TX_GAS = 21_000n;

/** The least gas limit the tx may carry: intrinsic gas, or the EIP-7623 calldata floor if higher. */
export function minimumGas(decoded: DecodedTx): bigint {
  // A transfer read from its bytes carries nothing but the base cost (its fast path is off
  // where EIP-2780 would add recipient costs).
  if (decoded instanceof TransferTx) return BASE_TX_GAS;
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
  // The sender's hex is built only for an error: the passing case is every transaction of a block.
  const want = minimumGas(decoded);
  if (decoded.gasLimit < want) throw new IntrinsicGasTooLowError(decoded.gasLimit, want);
  if (decoded.maxFeePerGas < baseFee) throw new FeeBelowBaseFeeError(decoded.sender.toString(), decoded.maxFeePerGas, baseFee);
  if (decoded.nonce < state.nonce) throw new NonceTooLowError(decoded.sender.toString(), decoded.nonce, state.nonce);
  if (nonces === 'exact' && decoded.nonce > state.nonce) throw new NonceTooHighError(decoded.sender.toString(), decoded.nonce, state.nonce);
  const cost = decoded.gasLimit * decoded.maxFeePerGas + decoded.value;
  if (state.balance < cost) throw new InsufficientFundsError(decoded.sender.toString(), state.balance, cost);
}
