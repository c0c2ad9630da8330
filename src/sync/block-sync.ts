/**
 * Block sync. Every node learns its peers' heights (a status request when a peer connects, an
 * announcement after each block a peer commits, and a periodic poll) and announces its own
 * blocks. A follower fetches the blocks it misses in ranges from any peer that has them (the
 * next range is fetched while the current one executes), verifies each block (place in the
 * chain, proposer signature, tx root), checks that its header carries the app hash this node
 * computed for the block before, executes it through the App exactly as the validator did,
 * checks the results against the header and stores it. An app-hash mismatch halts applying
 * blocks for good (RPC keeps serving); a peer that sends a bad block is dropped.
 */
import type { App, BlockExecution } from '../app/index.js';
import { storedReceipt } from '../chain/executed-receipt.js';
import { ZERO_HASH, decodeBlock, type StoredBlock } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import type { Mempool } from '../chain/mempool.js';
import { removeProposal, writeProposal } from '../chain/proposal.js';
import type { ExecutedTx } from '../evm/executor.js';
import type { Logger } from '../log/logger.js';
import { PeerRequestError, type Peer, type PeerHost } from '../p2p/index.js';
import { syncCrashArmed, syncCrashPoint } from './crash-hook.js';
import { AppHashMismatchError, BlockResultsMismatchError, BlockVerificationError, SyncMessageError } from './errors.js';
import {
  ANNOUNCE_PROTOCOL,
  BLOCKS_PROTOCOL,
  MAX_BLOCKS_PER_REQUEST,
  STATUS_PROTOCOL,
  parseAnnounce,
  parseBlocksReply,
  parseStatus,
  type AnnounceMessage,
} from './messages.js';
import { verifyBlock, type ValidatorSet } from './verify.js';

/** What block sync needs from the node. */
export interface BlockSyncDeps {
  app: App;
  store: BlockStore;
  mempool: Mempool;
  host: PeerHost;
  logger: Logger;
  validators: ValidatorSet;
  /** genesis.json `chain_id`: peers on another chain are dropped. */
  chainId: string;
  /** The proposal log a follower writes before executing a block, so a crash mid-block is reconciled at start. */
  proposalPath: string;
  /** True on a follower: fetch and apply the blocks peers have. */
  follow: boolean;
  /** Persistent peers are configured: until one reports its height, this node is catching up. */
  expectPeers: boolean;
  /** Called after each block this node applied from peers. */
  onApplied?: (block: StoredBlock) => void;
  /** Called once when sync halts for good (the node writes a crash report). */
  onHalt?: (error: Error) => void;
  requestTimeoutMs?: number;
  statusPollMs?: number;
}

/** The follower's state as /status reports it. */
export interface SyncState {
  catchingUp: boolean;
  /** Highest height a peer reported. */
  maxPeerHeight: number;
  /** Why applying blocks stopped, once it has. */
  halted?: string;
}

interface Fetched {
  peer: Peer;
  blocks: StoredBlock[];
  /** Each block's #prepare by index, started ahead of its turn (the first as soon as a range arrives). */
  prepared: Array<Promise<void> | undefined>;
}

/** Why `execution` is not what `block`'s header says it produced; undefined when it is. */
function resultsProblem(block: StoredBlock, execution: BlockExecution): string | undefined {
  const { header } = block;
  const executed = execution.txs.reduce((n, t) => (t.kind === 'executed' ? n + 1 : n), 0);
  if (executed !== block.txs.length) return `${block.txs.length - executed} of its transactions were not executable here`;
  if (!eq(execution.receiptsRoot, header.receiptsRoot)) return `receipts root ${upper(execution.receiptsRoot)}, header ${upper(header.receiptsRoot)}`;
  if (execution.gasUsed !== header.gasUsed) return `gas used ${execution.gasUsed}, header ${header.gasUsed}`;
  if (!eq(execution.logsBloom, header.logsBloom)) return 'the logs bloom differs';
  return undefined;
}

/** Blocks a follower that was caught up may trail by and still not be catching up. */
const CAUGHT_UP_LAG = 5;

const eq = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
const upper = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex').toUpperCase();

/** Peer heights, announcements and (on a follower) fetching and applying blocks. */
export class BlockSync {
  readonly #deps: BlockSyncDeps;
  readonly #heights = new Map<string, number>();
  #wake: (() => void) | undefined;
  #stopped = false;
  #halted: Error | undefined;
  #caughtUpOnce = false;
  #loop: Promise<void> = Promise.resolve();
  #poll: NodeJS.Timeout | undefined;

  constructor(deps: BlockSyncDeps) {
    this.#deps = deps;
  }

  /** Registers the announce handler, starts tracking peers and (on a follower) the fetch loop. */
  async start(): Promise<void> {
    const { host } = this.#deps;
    await host.handle(ANNOUNCE_PROTOCOL, (message, peer) => {
      this.#setHeight(peer, parseAnnounce(message).height);
      return undefined;
    });
    host.onConnect((peer) => void this.#askStatus(peer));
    host.onDisconnect((peer) => this.#heights.delete(peer.nodeId));
    for (const peer of host.peers()) void this.#askStatus(peer);
    const pollMs = this.#deps.statusPollMs ?? 5_000;
    const poll = (): void => {
      for (const peer of this.#deps.host.peers()) void this.#askStatus(peer);
      this.#poll = setTimeout(poll, pollMs);
    };
    this.#poll = setTimeout(poll, pollMs);
    if (this.#deps.follow) this.#loop = this.#run();
  }

  /** Heights peers reported, by node id. */
  peerHeight(nodeId: string): number | undefined {
    return this.#heights.get(nodeId);
  }

  /** Catching up, the best peer height and a halt reason. */
  state(): SyncState {
    const local = this.#deps.store.latestHeight() ?? 0;
    const maxPeerHeight = Math.max(0, ...this.#heights.values());
    if (this.#halted) return { catchingUp: false, maxPeerHeight, halted: this.#halted.message };
    if (!this.#deps.follow || (this.#heights.size === 0 && !this.#deps.expectPeers)) return { catchingUp: false, maxPeerHeight };
    // Until a peer's height is known this node cannot know it is caught up. Once it was, the
    // block or two a follower trails by between an announcement and applying it is not
    // catching up; falling further behind is.
    const lag = maxPeerHeight - local;
    this.#noteCaughtUp();
    return { catchingUp: !this.#caughtUpOnce || lag > CAUGHT_UP_LAG, maxPeerHeight };
  }

  /** Remembers that this node reached its best peer's height (within one block). */
  #noteCaughtUp(): void {
    if (this.#heights.size === 0) return;
    const local = this.#deps.store.latestHeight() ?? 0;
    if (Math.max(0, ...this.#heights.values()) - local <= 1) this.#caughtUpOnce = true;
  }

  /** Tells every peer this node committed `height`. */
  announce(height: number): void {
    const message: AnnounceMessage = { height };
    for (const peer of this.#deps.host.peers()) {
      this.#deps.host.request(peer, ANNOUNCE_PROTOCOL, message, { timeoutMs: this.#timeout(), expectReply: false }).catch((error: unknown) => {
        this.#deps.logger.debug('announce failed', { peer: peer.nodeId, error: error instanceof Error ? error.message : String(error) });
      });
    }
  }

  /** Stops the loop and the poll; waits for a block being applied. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll) clearTimeout(this.#poll);
    this.#wake?.();
    await this.#loop;
  }

  #timeout(): number {
    return this.#deps.requestTimeoutMs ?? 10_000;
  }

  #setHeight(peer: Peer, height: number): void {
    if (!this.#deps.host.peers().some((p) => p.nodeId === peer.nodeId)) return;
    if ((this.#heights.get(peer.nodeId) ?? -1) >= height) return;
    this.#heights.set(peer.nodeId, height);
    this.#wake?.();
  }

  async #askStatus(peer: Peer): Promise<void> {
    try {
      const status = parseStatus(await this.#deps.host.request(peer, STATUS_PROTOCOL, {}, { timeoutMs: this.#timeout(), expectReply: true }));
      if (status.chainId !== this.#deps.chainId) {
        this.#deps.host.drop(peer, new SyncMessageError(STATUS_PROTOCOL, `peer is on chain ${status.chainId}, this node on ${this.#deps.chainId}`));
        return;
      }
      this.#setHeight(peer, status.height);
    } catch (error) {
      if (error instanceof SyncMessageError) this.#deps.host.drop(peer, error);
      else this.#deps.logger.debug('status request failed', { peer: peer.nodeId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Waits until a peer height changes (or stop). */
  #idle(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.#wake = () => {
        if (timer) clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** A peer that has block `from`, preferring the highest; undefined when none has. */
  #peerFor(from: number): Peer | undefined {
    const candidates = this.#deps.host.peers().filter((p) => (this.#heights.get(p.nodeId) ?? 0) >= from);
    if (candidates.length === 0) return undefined;
    return candidates[Math.floor(Math.random() * candidates.length)];
  }

  async #fetch(from: number): Promise<Fetched | undefined> {
    const peer = this.#peerFor(from);
    if (!peer) return undefined;
    const to = Math.min(from + MAX_BLOCKS_PER_REQUEST - 1, this.#heights.get(peer.nodeId) ?? from);
    const answer = await this.#deps.host.request(peer, BLOCKS_PROTOCOL, { from, to }, { timeoutMs: this.#timeout(), expectReply: true });
    try {
      const reply = parseBlocksReply(answer);
      if (reply.blocks.length === 0) {
        throw new PeerRequestError(`peer ${peer.nodeId} sent no block for ${from}..${to} (a block larger than its max-packet-msg-payload-size?)`);
      }
      const blocks = reply.blocks.map((encoded, i) => {
        let block: StoredBlock;
        try {
          block = decodeBlock(encoded);
        } catch (error) {
          throw new BlockVerificationError(from + i, `undecodable: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (block.header.height !== from + i) throw new BlockVerificationError(from + i, `the peer sent block ${block.header.height} in its place`);
        return block;
      });
      return { peer, blocks, prepared: [] };
    } catch (error) {
      if (error instanceof SyncMessageError || error instanceof BlockVerificationError) this.#deps.host.drop(peer, error);
      throw error;
    }
  }

  async #run(): Promise<void> {
    const { logger, host } = this.#deps;
    let pending: Promise<Fetched | undefined> | undefined;
    let nextFrom = 0;
    const discard = (): void => {
      pending?.catch(() => undefined);
      pending = undefined;
    };
    while (!this.#stopped && !this.#halted) {
      const local = this.#deps.store.latestHeight() ?? 0;
      if (!pending) nextFrom = local + 1;
      const best = Math.max(0, ...this.#heights.values());
      if (!pending && best < nextFrom) {
        this.#noteCaughtUp();
        await this.#idle();
        continue;
      }
      let fetched: Fetched | undefined;
      try {
        fetched = await (pending ?? this.#fetch(nextFrom));
      } catch (error) {
        discard();
        this.#peerFault(error);
        await this.#idle(200);
        continue;
      }
      pending = undefined;
      if (!fetched) {
        await this.#idle(200);
        continue;
      }
      nextFrom = fetched.blocks[fetched.blocks.length - 1]!.header.height + 1;
      if (nextFrom <= Math.max(0, ...this.#heights.values())) {
        // The next range's first block (and the first with transactions) is prepared as soon
        // as it arrives, so the range boundary does not wait for a whole block's sender recovery.
        pending = this.#fetch(nextFrom).then((next) => {
          if (next) this.#prepareAhead(next, 0);
          return next;
        });
        // Awaited later; marked handled now so a failure while blocks execute cannot crash the node.
        pending.catch(() => undefined);
      }
      // Each block's senders are recovered in one native batch while the blocks before it
      // execute; a block waits only for its own batch (which never fails: a tx it could not
      // decode is decoded again, and reported, by execution).
      for (let i = 0; i < fetched.blocks.length; i++) {
        const block = fetched.blocks[i]!;
        if (this.#stopped) break;
        await this.#prepareAhead(fetched, i);
        try {
          await this.#apply(block);
        } catch (error) {
          discard();
          if (error instanceof AppHashMismatchError || error instanceof BlockResultsMismatchError) {
            this.#halt(error, block);
          } else if (error instanceof BlockVerificationError) {
            host.drop(fetched.peer, error);
          } else {
            this.#halt(error instanceof Error ? error : new Error(String(error)), block);
          }
          break;
        }
      }
    }
    discard();
    if (this.#halted) logger.warn('block sync stopped; the node keeps serving RPC at its last committed height', { height: this.#deps.store.latestHeight() ?? 0 });
  }

  /**
   * Starts #prepare for block `i` of `range` and for the blocks after it up to the next one
   * with transactions; answers block `i`'s. Looking past empty blocks (the chain's first, idle
   * heights) keeps the next block's batch recovering while one executes even when the one
   * executing takes no time. Only one block ahead: each batch holds a libuv thread while it waits.
   */
  #prepareAhead(range: Fetched, i: number): Promise<void> {
    range.prepared[i] ??= this.#prepare(range.blocks[i]!);
    for (let j = i + 1; j < range.blocks.length; j++) {
      range.prepared[j] ??= this.#prepare(range.blocks[j]!);
      if (range.blocks[j]!.txs.length > 0) break;
    }
    return range.prepared[i]!;
  }

  /** Decodes `block`'s transactions and recovers their senders for #apply; never rejects. */
  #prepare(block: StoredBlock): Promise<void> {
    return this.#deps.app.prepareTxs(block.txs).catch((error: unknown) => {
      this.#deps.logger.debug('recovering senders ahead failed; the block decodes them as it executes', {
        height: block.header.height,
        error: error instanceof Error ? error.message : String(error),
      });
    });
  }

  #peerFault(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof BlockVerificationError || error instanceof SyncMessageError) {
      // #fetch dropped the peer; the range is asked of another.
      this.#deps.logger.warn('a peer sent a bad block range', { error: message });
    } else {
      this.#deps.logger.debug('block range request failed', { error: message });
    }
  }

  #halt(error: Error, block: StoredBlock): void {
    this.#halted = error;
    if (error instanceof AppHashMismatchError) {
      this.#deps.logger.error(error.message, {
        height: error.height,
        blockId: error.blockId,
        expected: error.expected,
        got: error.got,
      });
    } else {
      this.#deps.logger.error('applying a block from peers failed; block sync stopped', { height: block.header.height, error: error.message });
    }
    this.#deps.logger.error('Consensus failure - height halted', {
      height: block.header.height,
      remedy: 'check for upgrades or halts with `stratad status`; for an app-hash mismatch stop the node, run `stratad rollback` and restart',
    });
    this.#deps.onHalt?.(error);
  }

  /** Verifies, executes, checks and stores one block. */
  async #apply(block: StoredBlock): Promise<void> {
    const { app, store, mempool } = this.#deps;
    const { header } = block;
    const local = store.latestHeight() ?? 0;
    verifyBlock(block, { height: local, hash: local > 0 ? (store.hashAt(local) ?? ZERO_HASH) : ZERO_HASH, chainId: BigInt(app.genesis.evm_chain_id) }, this.#deps.validators);
    const commit = [{ validatorAddress: header.proposer, timestampMs: header.timeMs, signature: block.signature }];
    if (app.height() >= header.height) {
      // The chain's first block, committed before a crash kept it out of the block store
      // (the state cannot be rolled back below it): it carries no transactions.
      if (block.txs.length > 0 || header.height !== app.height()) {
        throw new BlockResultsMismatchError(header.height, `the state is at ${app.height()} but the block store at ${local}; run \`stratad rollback\``);
      }
      await store.saveBlock(block, [], commit);
    } else {
      // A restart rolls back a block executed but not stored (node.ts), except where the state
      // cannot go back: the first block above its earliest height. Only there does the block
      // go to the proposal log first, which proves it to the restart.
      const logged = app.height() <= app.earliestHeight();
      const ours = app.height() === 0 ? await app.initChain() : app.appHash();
      if (!eq(ours, header.appHash)) throw new AppHashMismatchError(header.height, upper(block.hash), upper(ours), upper(header.appHash));
      if (logged) {
        await writeProposal(this.#deps.proposalPath, {
          height: header.height,
          timeMs: header.timeMs,
          proposer: header.proposer,
          baseFee: header.baseFee,
          gasLimit: header.gasLimit,
          lastBlockHash: header.lastBlockHash,
          appHash: header.appHash,
          txs: block.txs,
        });
      }
      // The block is written while its state commits, and published (raised to latest) only
      // once both are done, so no read sees it before its state. A crash between the two
      // leaves either the state one block ahead (rolled back at start) or the block store one
      // block ahead (replayed at start).
      let hash: Buffer | undefined;
      await app.executeBlock(
        { height: header.height, timeMs: header.timeMs, proposer: header.proposer, baseFee: header.baseFee, gasLimit: header.gasLimit },
        block.txs,
        async (execution, committed) => {
          const problem = resultsProblem(block, execution);
          if (problem !== undefined) throw new BlockResultsMismatchError(header.height, problem);
          if (syncCrashArmed('after-execute', header.height)) {
            await committed;
            syncCrashPoint('after-execute', header.height);
          }
          const receipts = execution.txs.filter((t): t is ExecutedTx => t.kind === 'executed').map(storedReceipt);
          hash = await store.writeBlock(block, receipts, commit);
          syncCrashPoint('after-block-write', header.height);
        },
      );
      store.publishBlock(header.height, hash!);
      syncCrashPoint('after-store', header.height);
      if (logged) removeProposal(this.#deps.proposalPath);
    }
    mempool.update(header.height, block.txs);
    this.#deps.logger.info('applied block from peers', { height: header.height, txs: block.txs.length });
    this.#deps.onApplied?.(block);
  }
}
