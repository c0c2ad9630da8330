/**
 * Mempool: pending transactions, queued per sender in nonce order. A sender's txs from its
 * account nonce upward without a gap are executable; the rest wait as future txs until the
 * gap is filled. The app supplies the admission check (signature, nonce, balance) and the
 * committed account nonce, so this module stays free of execution concerns.
 */
import { plainHex } from '../util/hex.js';
import { txHash } from './block.js';
import { LRUCache } from 'lru-cache';
import TinyQueue from 'tinyqueue';
import { withFields } from '../util/objects.js';

/** What the app's admission check learned about a tx. */
export interface CheckedTx {
  /** Sender address, lower-case 0x hex. */
  sender: string;
  nonce: bigint;
  gasLimit: bigint;
  /** Ordering price: the tip the producer earns per gas (higher is reaped first). */
  fee: bigint;
}

/**
 * The app's verdict on a raw tx: accepted with its facts (and the sender's nonce in the state
 * it was checked against, when the check read it), or rejected with a reason.
 */
export type CheckResult = { ok: true; tx: CheckedTx; accountNonce?: bigint } | { ok: false; reason: string };

/** A transaction held by the mempool. */
export interface MempoolTx extends CheckedTx {
  hash: Buffer;
  raw: Uint8Array;
  /** Time it entered, ms since the epoch. */
  addedAtMs: number;
  /** Latest committed height when it entered. */
  addedAtHeight: number;
}

/** Settings (config.toml `[mempool]`). */
export interface MempoolOptions {
  /** Most txs held. */
  size: number;
  /** Evict txs older than this many ms; 0 = never. */
  ttlDurationMs: number;
  /** Evict txs that entered more than this many blocks ago; 0 = never. */
  ttlNumBlocks: number;
  /** Remember hashes of rejected txs and refuse them again without re-checking. */
  keepInvalidTxsInCache: boolean;
  /** Largest raw tx accepted, in bytes; 0 = no limit. */
  maxTxBytes?: number;
  /** Most rejected hashes remembered (default 10,000). */
  invalidCacheSize?: number;
  /** Most pending txs of one sender (default 80). */
  maxTxsPerSender?: number;
  /** Admission check of a raw tx. */
  check: (raw: Uint8Array) => CheckResult | Promise<CheckResult>;
  /** The sender's committed account nonce. */
  accountNonce: (sender: string) => bigint;
  /** Clock, ms since the epoch (tests pass their own). */
  now?: () => number;
  /** Latest committed height at start. */
  height?: number;
}

/** Pending txs one sender may have when the settings name no limit (geth: 16 executable + 64 queued). */
export const DEFAULT_MAX_TXS_PER_SENDER = 80;

/** One sender's executable txs while a block is reaped, and how many of them it took. */
interface ReapHead {
  readonly txs: readonly MempoolTx[];
  next: number;
  /** The sender's place in the pool, which breaks fee ties. */
  readonly order: number;
}

/** Base class of mempool refusals; `message` is what eth_sendRawTransaction returns. */
export class MempoolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The pool holds `size` txs already. */
export class MempoolFullError extends MempoolError {
  constructor(readonly count: number) {
    super(`mempool is full: ${count} txs; try again later`);
  }
}

/** The sender has `maxTxsPerSender` txs pending already. */
export class SenderLimitError extends MempoolError {
  constructor(sender: string, count: number) {
    super(`account limit exceeded: ${sender} has ${count} pending transactions (max-txs-per-sender); wait until some are included`);
  }
}

/** The same tx is already pending. */
export class AlreadyKnownError extends MempoolError {
  constructor() {
    super('already known');
  }
}

/** A tx with the same sender and nonce is pending with a fee at least as high. */
export class ReplacementUnderpricedError extends MempoolError {
  constructor() {
    super('replacement transaction underpriced');
  }
}

/** The app's check refused the tx (now, or earlier when the invalid cache remembers it). */
export class CheckTxRejectedError extends MempoolError {}

/** The raw tx exceeds `maxTxBytes`. */
export class TxTooLargeError extends MempoolError {
  constructor(size: number, max: number) {
    super(`tx too large: ${size} bytes, the limit is ${max}`);
  }
}

/** Counts of the pool's txs. */
export interface MempoolStats {
  total: number;
  executable: number;
  future: number;
}

/**
 * The pending txs of one sender, by nonce. The end of the executable run (the first nonce
 * from the account nonce on that is missing) is kept, so admission's next-nonce check costs
 * a lookup rather than a walk over the sender's queue.
 */
class SenderQueue {
  readonly #byNonce = new Map<bigint, MempoolTx>();
  #accountNonce: bigint;
  /** First missing nonce from #accountNonce on; undefined until asked after a change that may move it back. */
  #end: bigint | undefined;

  constructor(accountNonce: bigint) {
    this.#accountNonce = accountNonce;
    this.#end = accountNonce;
  }

  get accountNonce(): bigint {
    return this.#accountNonce;
  }

  set accountNonce(nonce: bigint) {
    if (nonce === this.#accountNonce) return;
    this.#accountNonce = nonce;
    this.#end = undefined;
  }

  /** Number of txs held. */
  get size(): number {
    return this.#byNonce.size;
  }

  /** The tx with this nonce, if any. */
  get(nonce: bigint): MempoolTx | undefined {
    return this.#byNonce.get(nonce);
  }

  /** Holds `tx`, replacing any tx with its nonce. */
  put(tx: MempoolTx): void {
    this.#byNonce.set(tx.nonce, tx);
    if (this.#end === tx.nonce) this.#end = this.#walkFrom(tx.nonce + 1n);
  }

  /** Drops the tx with this nonce. */
  delete(nonce: bigint): void {
    if (!this.#byNonce.delete(nonce)) return;
    if (this.#end !== undefined && nonce < this.#end) this.#end = undefined;
  }

  /** Every tx held, in no particular order. */
  values(): IterableIterator<MempoolTx> {
    return this.#byNonce.values();
  }

  /** The nonce after the last executable tx: the sender's next nonce counting the pool. */
  nextNonce(): bigint {
    return (this.#end ??= this.#walkFrom(this.#accountNonce));
  }

  /** Executable txs: nonces accountNonce, accountNonce + 1, … without a gap. */
  executable(): MempoolTx[] {
    const out: MempoolTx[] = [];
    const end = this.nextNonce();
    for (let n = this.#accountNonce; n < end; n++) out.push(this.#byNonce.get(n)!);
    return out;
  }

  #walkFrom(nonce: bigint): bigint {
    let n = nonce;
    while (this.#byNonce.has(n)) n++;
    return n;
  }
}

/** The pool. */
export class Mempool {
  private readonly byHash = new Map<string, MempoolTx>();
  private readonly senders = new Map<string, SenderQueue>();
  /** Hashes of refused txs and why (when keep-invalid-txs-in-cache is on), least recently seen out first. */
  private readonly invalid: LRUCache<string, string>;
  private readonly now: () => number;
  private height: number;
  /** Told about each admitted tx (pending-transaction filters and subscriptions). */
  readonly #admitted = new Set<(tx: MempoolTx) => void>();

  constructor(private readonly options: MempoolOptions) {
    if (!Number.isSafeInteger(options.size) || options.size < 1) throw new RangeError('mempool size must be a positive integer');
    this.now = options.now ?? Date.now;
    this.invalid = new LRUCache({ max: options.invalidCacheSize ?? 10_000 });
    this.height = options.height ?? 0;
  }

  /** Number of txs held. */
  get size(): number {
    return this.byHash.size;
  }

  /**
   * Admits a raw tx: refuses duplicates, remembered invalid txs, oversized txs and a full
   * pool, runs the app's check, and replaces a same-nonce tx only for a higher fee.
   */
  async add(raw: Uint8Array): Promise<MempoolTx> {
    const hash = txHash(raw);
    const key = plainHex(hash);
    if (this.byHash.has(key)) throw new AlreadyKnownError();
    const remembered = this.invalid.get(key);
    if (remembered !== undefined) throw new CheckTxRejectedError(remembered);
    const maxBytes = this.options.maxTxBytes ?? 0;
    if (maxBytes > 0 && raw.length > maxBytes) throw new TxTooLargeError(raw.length, maxBytes);
    const checking = this.options.check(raw);
    const synchronous = !(checking instanceof Promise);
    const result = synchronous ? checking : await checking;
    if (!result.ok) {
      this.rememberInvalid(key, result.reason);
      throw new CheckTxRejectedError(result.reason);
    }
    // The check may have awaited: the same tx can have arrived meanwhile.
    if (this.byHash.has(key)) throw new AlreadyKnownError();
    const checked = result.tx;
    const sender = checked.sender.toLowerCase();
    let queue = this.senders.get(sender);
    // A check that answered at once read the sender's nonce in the state as it still is: reading
    // it again would cost a store read per tx. After an awaited check a block may have committed.
    const accountNonce = (synchronous ? result.accountNonce : undefined) ?? this.options.accountNonce(sender);
    if (checked.nonce < accountNonce) {
      throw new CheckTxRejectedError(`nonce too low: next nonce ${accountNonce}, tx nonce ${checked.nonce}`);
    }
    const replaced = queue?.get(checked.nonce);
    if (replaced && checked.fee <= replaced.fee) throw new ReplacementUnderpricedError();
    if (!replaced) {
      const perSender = this.options.maxTxsPerSender ?? DEFAULT_MAX_TXS_PER_SENDER;
      if (queue && queue.size >= perSender) throw new SenderLimitError(sender, queue.size);
      if (this.byHash.size >= this.options.size) this.#evictCheaperThan(checked.fee, sender);
    }
    if (!queue) {
      queue = new SenderQueue(accountNonce);
      this.senders.set(sender, queue);
    }
    queue.accountNonce = accountNonce;
    const tx: MempoolTx = withFields(checked, { sender, hash, raw, addedAtMs: this.now(), addedAtHeight: this.height });
    if (replaced) this.byHash.delete(plainHex(replaced.hash));
    queue.put(tx);
    this.byHash.set(key, tx);
    for (const listener of this.#admitted) listener(tx);
    return tx;
  }

  /** Calls `listener` with each tx admitted from now on, until the returned function is called. */
  onAdmitted(listener: (tx: MempoolTx) => void): () => void {
    this.#admitted.add(listener);
    return () => this.#admitted.delete(listener);
  }

  /** True when the tx with this hash is pending. */
  has(hash: Uint8Array): boolean {
    return this.byHash.has(plainHex(hash));
  }

  /** The pending tx with this hash, or undefined. */
  get(hash: Uint8Array): MempoolTx | undefined {
    return this.byHash.get(plainHex(hash));
  }

  /** The nonce after the sender's last executable pending tx (eth_getTransactionCount "pending"). */
  pendingNonce(sender: string): bigint {
    const address = sender.toLowerCase();
    const queue = this.senders.get(address);
    if (!queue) return this.options.accountNonce(address);
    return queue.nextNonce();
  }

  /** Counts of executable and future txs. */
  stats(): MempoolStats {
    let executable = 0;
    for (const queue of this.senders.values()) executable += Number(queue.nextNonce() - queue.accountNonce);
    return { total: this.byHash.size, executable, future: this.byHash.size - executable };
  }

  /**
   * Executable txs for the next block, at most `maxTxs` and `maxGas` total gas limit:
   * each sender's txs in nonce order, senders interleaved by fee (highest first).
   */
  reap(maxGas: bigint, maxTxs: number): MempoolTx[] {
    this.evictExpired();
    // Senders by the fee of their next tx (ties: the order senders came in), so each pick costs
    // log(senders), not a scan of them all: a block of 60,000 txs from 10,000 senders.
    const heads = new TinyQueue<ReapHead>([], (a, b) => {
      const fa = a.txs[a.next]!.fee;
      const fb = b.txs[b.next]!.fee;
      return fa > fb ? -1 : fa < fb ? 1 : a.order - b.order;
    });
    let order = 0;
    for (const queue of this.senders.values()) {
      const ready = queue.executable();
      if (ready.length > 0) heads.push({ txs: ready, next: 0, order: order++ });
    }
    const out: MempoolTx[] = [];
    let gas = 0n;
    while (out.length < maxTxs && heads.length > 0) {
      const head = heads.pop()!;
      const tx = head.txs[head.next]!;
      // This sender's later txs cannot run without this one; other senders may still fit.
      if (gas + tx.gasLimit > maxGas) continue;
      gas += tx.gasLimit;
      out.push(tx);
      head.next++;
      if (head.next < head.txs.length) heads.push(head);
    }
    return out;
  }

  /**
   * After block `height` committed: drops the included txs, refreshes every sender's
   * account nonce (dropping txs it made stale) and evicts txs past their TTL.
   */
  update(height: number, committedTxs: readonly Uint8Array[]): void {
    this.height = height;
    // A follower catching up holds nothing to remove: no hash per committed tx then.
    if (this.byHash.size > 0) for (const raw of committedTxs) this.remove(plainHex(txHash(raw)));
    for (const [sender, queue] of this.senders) {
      queue.accountNonce = this.options.accountNonce(sender);
      for (const tx of queue.values()) {
        if (tx.nonce < queue.accountNonce) this.remove(plainHex(tx.hash));
      }
    }
    this.evictExpired();
  }

  /** Removes txs older than `ttl-duration` or `ttl-num-blocks`; returns how many. */
  evictExpired(): number {
    const { ttlDurationMs, ttlNumBlocks } = this.options;
    if (ttlDurationMs <= 0 && ttlNumBlocks <= 0) return 0;
    const now = this.now();
    let evicted = 0;
    for (const [key, tx] of this.byHash) {
      const tooOld = ttlDurationMs > 0 && now - tx.addedAtMs > ttlDurationMs;
      const tooManyBlocks = ttlNumBlocks > 0 && this.height - tx.addedAtHeight > ttlNumBlocks;
      if (tooOld || tooManyBlocks) {
        this.remove(key);
        evicted++;
      }
    }
    return evicted;
  }

  /**
   * Every pending tx split as geth's txpool splits them: `pending` can run next (each sender's
   * nonces from its account nonce without a gap), `queued` waits behind a gap; by sender, then nonce.
   */
  content(): { pending: MempoolTx[]; queued: MempoolTx[] } {
    const pending: MempoolTx[] = [];
    const queued: MempoolTx[] = [];
    for (const queue of this.senders.values()) {
      const ready = queue.executable();
      pending.push(...ready);
      const runnable = new Set(ready);
      const waiting = [...queue.values()].filter((tx) => !runnable.has(tx));
      queued.push(...waiting.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0)));
    }
    return { pending, queued };
  }

  /** Every pending tx, by sender then nonce. */
  txs(): MempoolTx[] {
    const out: MempoolTx[] = [];
    for (const queue of this.senders.values()) {
      out.push(...[...queue.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0)));
    }
    return out;
  }

  private remove(key: string): void {
    const tx = this.byHash.get(key);
    if (!tx) return;
    this.byHash.delete(key);
    const queue = this.senders.get(tx.sender);
    if (!queue) return;
    queue.delete(tx.nonce);
    if (queue.size === 0) this.senders.delete(tx.sender);
  }

  /**
   * Makes room in a full pool for a tx paying `fee`: the cheapest tx that is last in its
   * sender's queue (removing it leaves no nonce gap) goes, if it pays less and is not the
   * newcomer's own; otherwise the pool is full for this tx.
   */
  #evictCheaperThan(fee: bigint, sender: string): void {
    let cheapest: MempoolTx | undefined;
    for (const [owner, queue] of this.senders) {
      if (owner === sender) continue;
      let last: MempoolTx | undefined;
      for (const tx of queue.values()) if (last === undefined || tx.nonce > last.nonce) last = tx;
      if (last !== undefined && (cheapest === undefined || last.fee < cheapest.fee)) cheapest = last;
    }
    if (cheapest === undefined || cheapest.fee >= fee) throw new MempoolFullError(this.byHash.size);
    this.remove(plainHex(cheapest.hash));
  }

  private rememberInvalid(key: string, reason: string): void {
    if (!this.options.keepInvalidTxsInCache) return;
    this.invalid.set(key, reason);
  }
}
