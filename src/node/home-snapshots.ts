/**
 * Snapshots of a stopped node home, for `stratad snapshots`: list the home's snapshots, write
 * one of its current state, and restore an emptied home from a snapshot directory — the state
 * (SC and SS, routed as the home's app.toml says) and the block at the snapshot height, so the
 * restored node serves RPC at that height.
 */
import { existsSync } from 'node:fs';

import { BlockStore } from '../chain/block-store.js';
import { loadConfig } from '../config/index.js';
import { Logger } from '../log/logger.js';
import {
  DirectoryChunkSource,
  finishSnapshot,
  listSnapshots,
  restoreSnapshot,
  snapshotsDir,
  verifiedExtra,
  type LocalSnapshot,
  type RestoreResult,
} from '../store/index.js';
import { appOptionsOf, openHomeApp } from './app-options.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from './home-lock.js';
import { homePaths } from './home.js';
import { NodeStartError } from './node.js';
import { SNAPSHOT_BLOCK_FILE, SnapshotBlockError, decodeSnapshotBlock, encodeSnapshotBlock } from './snapshot-block.js';

/** The snapshots under `<home>/data/snapshots/`, newest first. */
export function listHomeSnapshots(home: string): LocalSnapshot[] {
  return listSnapshots(snapshotsDir(homePaths(home).data));
}

function refuseHeld(dataDir: string): void {
  if (homeHeldByAnotherProcess(dataDir)) throw new NodeStartError(homeHeldMessage(dataDir));
}

/** Writes a snapshot of a stopped home's committed state into its data/snapshots/ (keeping `keepRecent`; 0 keeps all). */
export async function exportHomeSnapshot(home: string, options: { chunkBytes?: number; keepRecent?: number } = {}): Promise<LocalSnapshot> {
  const paths = homePaths(home);
  refuseHeld(paths.data);
  const config = await loadConfig(paths.home);
  const logger = new Logger({ level: 'warn' });
  const app = await openHomeApp(paths, config, logger, { maintenance: true });
  try {
    if (app.height() === 0) throw new NodeStartError(`${paths.home} has no committed block yet; start the node and let it commit one first`);
    const store = await BlockStore.open(paths.data);
    try {
      const block = encodeSnapshotBlock(store, app.height());
      const exported = await app.exportSnapshotStream(snapshotsDir(paths.data));
      return await finishSnapshot(exported, {
        ...(options.chunkBytes !== undefined ? { chunkBytes: options.chunkBytes } : {}),
        keepRecent: options.keepRecent ?? config.app.stateSync.snapshotKeepRecent,
        extras: block ? [{ name: SNAPSHOT_BLOCK_FILE, bytes: block }] : [],
      });
    } finally {
      await store.close();
    }
  } finally {
    await app.close();
  }
}

/**
 * Restores the home's state from the snapshot directory `from` (its data/ must hold no state
 * and no blocks; an interrupted earlier restore is discarded first). The SS is built as the
 * home's app.toml says (`ss-backend`, `evm-ss-split`).
 */
export async function restoreHomeSnapshot(
  home: string,
  from: string,
  options: { onChunk?: (index: number, total: number, bytes: number) => void; trustedAppHash?: Uint8Array } = {},
): Promise<RestoreResult> {
  const paths = homePaths(home);
  if (!existsSync(paths.genesis)) {
    throw new NodeStartError(`${paths.genesis} does not exist; run \`stratad init --chain-id <id> <moniker> --home ${paths.home}\` first`);
  }
  refuseHeld(paths.data);
  const config = await loadConfig(paths.home);
  const source = new DirectoryChunkSource(from);
  const manifest = source.manifest();
  const app = appOptionsOf(config);
  return restoreSnapshot({
    dataDir: paths.data,
    manifest,
    source,
    commit: app.commit,
    ss: app.ss,
    ...(options.trustedAppHash ? { trustedAppHash: options.trustedAppHash } : {}),
    ...(options.onChunk ? { onChunk: options.onChunk } : {}),
    alsoWrites: ['blockstore'],
    beforeCommit: async () => {
      const bytes = await verifiedExtra(source, manifest, SNAPSHOT_BLOCK_FILE);
      if (!bytes) return;
      const { block, receipts, commit } = decodeSnapshotBlock(bytes);
      if (block.header.height !== manifest.height) {
        throw new SnapshotBlockError(`the snapshot's block is at height ${block.header.height}, not the snapshot height ${manifest.height}; take the snapshot again`);
      }
      const store = await BlockStore.open(paths.data);
      try {
        await store.saveBlock(block, receipts, commit, block.imported);
      } finally {
        await store.close();
      }
    },
  });
}
