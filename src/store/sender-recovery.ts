/**
 * Batched sender recovery on native threads: secp256k1 public-key recovery and the key's
 * address, for many signatures at once, off the JavaScript thread. It lives with the store
 * because only this layer loads the native addon; it knows nothing of transactions.
 */
import { GrowingBuffer } from '../util/growing-buffer.js';
import { native, type NativeSenderRecovery } from './native.js';

/** Bytes of one packed item: signing hash (32) ‖ r (32) ‖ s (32) ‖ recovery id (1). */
export const RECOVERY_ITEM_BYTES = 97;
const ANSWER_BYTES = 21;

/** One signature to recover: the signing hash, r ‖ s (64 bytes) and the recovery id (0 or 1). */
export interface RecoveryItem {
  hash: Uint8Array;
  signature: Uint8Array;
  recoveryId: number;
}

/** A batch's answer: per item, the 20-byte sender address, or undefined when none recovers. */
export type RecoveredSenders = Array<Uint8Array | undefined>;

/** Per signed message: its sender (undefined when none recovers) and keccak256 of its raw bytes. */
export type RecoveredMessages = Array<{ sender: Uint8Array | undefined; rawHash: Buffer }>;

/**
 * Signed messages packed for {@link SenderRecovery.recoverMessages} as they are added: each as
 * its recovery id, r ‖ s, the message (hashed with keccak256 on the pool) and the bytes hashed
 * alongside it (a transaction's encoding). A block's batch costs one growing buffer, not an
 * array or object per message.
 */
export class SignedMessageBatch {
  readonly #packed: GrowingBuffer;
  readonly #lengths: number[] = [];

  /** A batch sized for about `expectedBytes` (it grows as needed). */
  constructor(expectedBytes = 4096) {
    this.#packed = new GrowingBuffer(Math.max(256, expectedBytes));
  }

  /**
   * Appends a message of `messageLength` bytes and its `raw` bytes. Answers where in
   * {@link buffer} the caller writes r ‖ s (64 bytes) and, right after it, the message, before
   * the next add. A recovery id other than 0 or 1 fails only this message.
   */
  add(recoveryId: number, messageLength: number, raw: Uint8Array): number {
    const at = this.#packed.claim(1 + 64 + messageLength + raw.length);
    const out = this.#packed.buffer;
    out[at] = recoveryId === 0 || recoveryId === 1 ? recoveryId : 0xff;
    out.set(raw, at + 65 + messageLength);
    this.#lengths.push(messageLength, raw.length);
    return at + 1;
  }

  /** The buffer add's answers point into (replaced when the batch grows). */
  get buffer(): Buffer {
    return this.#packed.buffer;
  }

  /** Messages added. */
  get size(): number {
    return this.#lengths.length / 2;
  }

  /** The packed messages and their (message, raw) lengths, as the native pool reads them. */
  packed(): { bytes: Buffer; lengths: Int32Array } {
    return { bytes: this.#packed.bytes(), lengths: Int32Array.from(this.#lengths) };
  }
}

const MESSAGE_ANSWER_BYTES = 53;

/** Packs items into the layout the native pool reads. */
export function packRecoveryItems(items: readonly RecoveryItem[]): Uint8Array {
  const packed = new Uint8Array(items.length * RECOVERY_ITEM_BYTES);
  items.forEach((item, i) => {
    const at = i * RECOVERY_ITEM_BYTES;
    if (item.hash.length !== 32 || item.signature.length !== 64) {
      throw new RangeError(`recovery item ${i} needs a 32-byte hash and a 64-byte r‖s; got ${item.hash.length} and ${item.signature.length} bytes`);
    }
    packed.set(item.hash, at);
    packed.set(item.signature, at + 32);
    // An id the native side refuses (anything but 0 or 1) fails only this item.
    packed[at + 96] = item.recoveryId === 0 || item.recoveryId === 1 ? item.recoveryId : 0xff;
  });
  return packed;
}

function unpack(answer: Buffer, count: number): RecoveredSenders {
  const out: RecoveredSenders = new Array<Uint8Array | undefined>(count);
  for (let i = 0; i < count; i++) {
    const at = i * ANSWER_BYTES;
    out[i] = answer[at] === 1 ? new Uint8Array(answer.buffer, answer.byteOffset + at + 1, 20) : undefined;
  }
  return out;
}

/** A pool of native threads that recovers senders in batches. */
export class SenderRecovery {
  readonly #pool: NativeSenderRecovery;

  /** `threads` worker threads; 0 (the default) is one per core. */
  constructor(threads = 0) {
    this.#pool = new native.NativeSenderRecovery(threads);
  }

  /** Number of native threads. */
  get threads(): number {
    return this.#pool.threads;
  }

  /** Recovers `items` across the pool; the JavaScript thread only packs and unpacks. */
  async recover(items: readonly RecoveryItem[]): Promise<RecoveredSenders> {
    if (items.length === 0) return [];
    return unpack(await this.#pool.recover(packRecoveryItems(items)), items.length);
  }

  /**
   * Recovers the messages of `batch` across the pool, hashing each message and raw encoding
   * there too, so the JavaScript thread does no keccak256 for them.
   */
  async recoverMessages(batch: SignedMessageBatch): Promise<RecoveredMessages> {
    const count = batch.size;
    if (count === 0) return [];
    const { bytes, lengths } = batch.packed();
    const answer = await this.#pool.recoverMessages(bytes, lengths);
    const out: RecoveredMessages = new Array(count);
    for (let i = 0; i < count; i++) {
      const at = answer.byteOffset + i * MESSAGE_ANSWER_BYTES;
      out[i] = {
        sender: answer[i * MESSAGE_ANSWER_BYTES] === 1 ? new Uint8Array(answer.buffer, at + 1, 20) : undefined,
        rawHash: Buffer.from(answer.buffer, at + 21, 32),
      };
    }
    return out;
  }

  /** Recovers `items` on the calling thread (batches too small to be worth a thread hop). */
  recoverSync(items: readonly RecoveryItem[]): RecoveredSenders {
    if (items.length === 0) return [];
    return unpack(this.#pool.recoverSync(packRecoveryItems(items)), items.length);
  }
}

let shared: SenderRecovery | undefined;

/** The process's pool, one thread per core, started on first use. */
export function sharedSenderRecovery(): SenderRecovery {
  return (shared ??= new SenderRecovery());
}
