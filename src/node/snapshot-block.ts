/**
 * The block at a snapshot's height travels with the snapshot (the `block.bin` extra file), so a
 * home restored from it has that block in its block store — the head its RPC resolves
 * `latest` and block numbers against, as CometBFT stores the trusted block after a state sync.
 */
import { deserialize, serialize } from 'node:v8';

import type { BlockStore, CommitSignature, Receipt } from '../chain/block-store.js';
import { txHash } from '../chain/block.js';
import type { ChainBlock } from '../chain/imported-block.js';

/** The extra file's name in a snapshot directory. */
export const SNAPSHOT_BLOCK_FILE = 'block.bin';

/** The block, receipts and commit a snapshot carries. */
export interface SnapshotBlock {
  block: ChainBlock;
  receipts: Receipt[];
  commit: CommitSignature[];
}

/** A snapshot's block file that cannot be used. */
export class SnapshotBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotBlockError';
  }
}

/** The stored block at `height` with its receipts and commit, encoded; undefined if not stored. */
export function encodeSnapshotBlock(store: BlockStore, height: number): Uint8Array | undefined {
  const block = store.blockByHeight(height);
  const commit = store.commit(height);
  if (!block || !commit) return undefined;
  const receipts: Receipt[] = block.txs.map((_raw, index) => {
    const stored = store.receipt(txHash(block.txs[index]!));
    if (!stored) throw new SnapshotBlockError(`the receipt of transaction ${index} of block ${height} is missing from the block store`);
    const { status, txType, from, to, contractAddress, gasUsed, cumulativeGasUsed, effectiveGasPrice } = stored;
    return {
      status, txType, from, to, contractAddress, gasUsed, cumulativeGasUsed, effectiveGasPrice,
      logs: stored.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
    };
  });
  return serialize({ block, receipts, commit: commit.signatures } satisfies SnapshotBlock);
}

/** Decodes a snapshot's block file (its bytes were checked against the manifest's sha256). */
export function decodeSnapshotBlock(bytes: Uint8Array): SnapshotBlock {
  let value: unknown;
  try {
    value = deserialize(bytes);
  } catch (error) {
    throw new SnapshotBlockError(`the snapshot's ${SNAPSHOT_BLOCK_FILE} cannot be decoded (${(error as Error).message}); take the snapshot again`);
  }
  const v = value as Partial<SnapshotBlock>;
  if (!v || typeof v !== 'object' || !v.block || !Array.isArray(v.receipts) || !Array.isArray(v.commit) || !Array.isArray(v.block.txs)) {
    throw new SnapshotBlockError(`the snapshot's ${SNAPSHOT_BLOCK_FILE} is not a block with receipts and a commit; take the snapshot again`);
  }
  return v as SnapshotBlock;
}
