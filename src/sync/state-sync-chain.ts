/**
 * The light-client step of state sync: the blocks between a snapshot and the trusted block,
 * fetched from peers, must form one chain — each block signed by a genesis validator, each
 * parent hash the hash of the block before — that contains the trusted block with the trusted
 * hash. Then the snapshot's block hash and the app hash after it (carried by the next header)
 * are as trusted as the trusted block itself, whether the snapshot is below it or above it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { decodeBlock, type StoredBlock } from '../chain/block.js';
import type { PeerHost } from '../p2p/index.js';
import { BLOCKS_PROTOCOL, MAX_BLOCKS_PER_REQUEST, parseBlocksReply } from './messages.js';
import { StateSyncError } from './state-sync-errors.js';
import { verifyBlock, type ValidatorSet } from './verify.js';

/** What the verified chain says about a snapshot height. */
export interface VerifiedSnapshotHeight {
  height: number;
  /** Hash of the block at the snapshot height. */
  blockHash: Buffer;
  /** App hash after that block (the next header's). */
  appHash: Buffer;
}

/** What verifying needs. */
export interface ChainCheck {
  host: PeerHost;
  validators: ValidatorSet;
  /** genesis `evm_chain_id`. */
  evmChainId: bigint;
  trustHeight: number;
  /** Lowercase hex. */
  trustHash: string;
  /** How long to wait for peers to have the block after the snapshot (it may not be produced yet). */
  waitMs?: number;
  requestTimeoutMs?: number;
}

/** Blocks `from`..`to` from any peer that has them, in ranges; throws StateSyncError when none does in time. */
async function fetchBlocks(check: ChainCheck, from: number, to: number): Promise<StoredBlock[]> {
  const blocks: StoredBlock[] = [];
  const deadline = Date.now() + (check.waitMs ?? 60_000);
  let lastError = 'no peer is connected';
  while (blocks.length < to - from + 1) {
    const next = from + blocks.length;
    const end = Math.min(to, next + MAX_BLOCKS_PER_REQUEST - 1);
    let got = false;
    for (const peer of check.host.peers()) {
      try {
        const reply = parseBlocksReply(await check.host.request(peer, BLOCKS_PROTOCOL, { from: next, to: end }, { timeoutMs: check.requestTimeoutMs ?? 10_000, expectReply: true }));
        if (reply.blocks.length === 0) {
          lastError = `peer ${peer.nodeId} has no block ${next} yet`;
          continue;
        }
        for (const [i, encoded] of reply.blocks.entries()) {
          const block = decodeBlock(encoded);
          if (block.header.height !== next + i) throw new StateSyncError(`peer ${peer.nodeId} sent block ${block.header.height} in place of ${next + i}`);
          blocks.push(block);
        }
        got = true;
        break;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
    if (!got) {
      if (Date.now() > deadline) throw new StateSyncError(`cannot fetch blocks ${next}..${end} from peers to verify the snapshot (${lastError}); check persistent_peers`);
      await sleep(300);
    }
  }
  return blocks;
}

/**
 * Verifies, through the blocks between them, the block at `snapshotHeight` and the app hash
 * after it against the trusted block. Throws StateSyncError (a peer's bad block included).
 */
export async function verifySnapshotHeight(check: ChainCheck, snapshotHeight: number): Promise<VerifiedSnapshotHeight> {
  const from = Math.min(snapshotHeight, check.trustHeight);
  const to = Math.max(snapshotHeight + 1, check.trustHeight);
  const blocks = await fetchBlocks(check, from, to);
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const parent = i === 0 ? { height: from - 1, hash: block.header.lastBlockHash } : { height: blocks[i - 1]!.header.height, hash: blocks[i - 1]!.hash };
    try {
      verifyBlock(block, { ...parent, chainId: check.evmChainId }, check.validators);
    } catch (error) {
      throw new StateSyncError(`the blocks peers sent between the snapshot and the trusted block do not verify: ${(error as Error).message}`);
    }
  }
  const trusted = blocks[check.trustHeight - from]!;
  if (trusted.hash.toString('hex') !== check.trustHash) {
    throw new StateSyncError(
      `peers serve block ${check.trustHeight} with hash ${trusted.hash.toString('hex').toUpperCase()}, not the trusted ${check.trustHash.toUpperCase()}; ` +
        'they are on another chain: check persistent_peers',
    );
  }
  const block = blocks[snapshotHeight - from]!;
  const next = blocks[snapshotHeight + 1 - from]!;
  return { height: snapshotHeight, blockHash: block.hash, appHash: Buffer.from(next.header.appHash) };
}
