/**
 * Transaction gossip (`/strata/txs/1`): the transactions a follower's mempool admits from its
 * RPC are sent to every peer in batches, each batch one bounded message; transactions that
 * arrive from a peer go through the same mempool admission and are not sent on again.
 */
import { LRUCache } from 'lru-cache';
import type { Mempool, MempoolTx } from '../chain/mempool.js';
import type { Logger } from '../log/logger.js';
import type { PeerHost } from '../p2p/index.js';
import { plainHex } from '../util/hex.js';
import { TXS_PROTOCOL, parseTxs, type TxsMessage } from './messages.js';

/** Settings of the gossip. */
export interface TxGossipOptions {
  /** `max-packet-msg-payload-size`. */
  maxMessageBytes: number;
  /**
   * Send admitted txs to peers. A follower does, so its clients' txs reach the validator; the
   * validator does not, as its txs reach followers in blocks.
   */
  forward: boolean;
  /** How long admitted txs are collected before a batch goes out. */
  flushMs?: number;
  /** Most txs waiting to be sent; beyond it the oldest are not gossiped (they stay pending here). */
  maxQueued?: number;
  logger: Logger;
}

const OVERHEAD = 32;
const PER_TX_OVERHEAD = 5;

/** Splits `txs` into messages of at most `limit` encoded bytes (a tx larger than that alone is left out). */
export function txBatches(txs: readonly Uint8Array[], limit: number): TxsMessage[] {
  const batches: TxsMessage[] = [];
  let current: Uint8Array[] = [];
  let size = OVERHEAD;
  for (const tx of txs) {
    const cost = tx.length + PER_TX_OVERHEAD;
    if (OVERHEAD + cost > limit) continue;
    if (size + cost > limit) {
      batches.push({ txs: current });
      current = [];
      size = OVERHEAD;
    }
    current.push(tx);
    size += cost;
  }
  if (current.length > 0) batches.push({ txs: current });
  return batches;
}

/** Gossips admitted transactions to peers and admits theirs. */
export class TxGossip {
  readonly #host: PeerHost;
  readonly #mempool: Mempool;
  readonly #options: TxGossipOptions;
  // Bounded by size rather than `max`: lru-cache preallocates its arrays for `max` entries,
  // ~21 ms and ~2 MiB at every start for a set that fills only under gossip.
  readonly #fromPeers = new LRUCache<string, true>({ maxSize: 100_000, sizeCalculation: () => 1 });
  #queue: Uint8Array[] = [];
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(host: PeerHost, mempool: Mempool, options: TxGossipOptions) {
    this.#host = host;
    this.#mempool = mempool;
    this.#options = options;
  }

  /** Registers the handler and starts gossiping admitted txs. */
  async start(): Promise<void> {
    await this.#host.handle(TXS_PROTOCOL, async (message, peer) => {
      const { txs } = parseTxs(message);
      let admitted = 0;
      for (const raw of txs) {
        this.#fromPeers.set(plainHex(Buffer.from(raw)), true);
        try {
          await this.#mempool.add(raw);
          admitted++;
        } catch {
          // Known, already included or invalid here: the sender's own node told its client.
        }
      }
      this.#options.logger.debug('admitted gossiped transactions', { peer: peer.nodeId, received: txs.length, admitted });
      return undefined;
    });
    if (this.#options.forward) this.#mempool.onAdmitted((tx) => this.#admitted(tx));
  }

  /** Stops sending. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  #admitted(tx: MempoolTx): void {
    if (this.#stopped || this.#fromPeers.has(plainHex(tx.hash))) return;
    this.#queue.push(tx.raw);
    const max = this.#options.maxQueued ?? 20_000;
    if (this.#queue.length > max) this.#queue.splice(0, this.#queue.length - max);
    this.#timer ??= setTimeout(() => this.#flush(), this.#options.flushMs ?? 10);
  }

  #flush(): void {
    this.#timer = undefined;
    const txs = this.#queue;
    this.#queue = [];
    const peers = this.#host.peers();
    if (peers.length === 0 || txs.length === 0) return;
    for (const batch of txBatches(txs, this.#options.maxMessageBytes)) {
      for (const peer of peers) {
        this.#host.request(peer, TXS_PROTOCOL, batch, { timeoutMs: 10_000, expectReply: false }).catch((error: unknown) => {
          this.#options.logger.debug('tx gossip failed', { peer: peer.nodeId, error: error instanceof Error ? error.message : String(error) });
        });
      }
    }
  }
}
