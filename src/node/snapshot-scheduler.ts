/**
 * Writes a state-sync snapshot every `snapshot-interval` blocks ([state-sync] in app.toml) into
 * data/snapshots/, keeping `snapshot-keep-recent`. The SC export runs between two blocks (the
 * app queues it); chunking, hashing and syncing run beside block production. One snapshot is
 * written at a time: a height that comes due while one is still being written is skipped. A
 * failed write is logged and never stops the node.
 */
import type { App } from '../app/index.js';
import type { BlockStore } from '../chain/block-store.js';
import type { StateSyncSnapshotConfig } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import { finishSnapshot, snapshotsDir } from '../store/index.js';
import { SNAPSHOT_BLOCK_FILE, encodeSnapshotBlock } from './snapshot-block.js';

/** The node's snapshot writer: told of every stored block, closed at shutdown. */
export interface SnapshotScheduler {
  afterBlock(height: number): void;
  /** Waits for a snapshot being written. */
  close(): Promise<void>;
}

/** Starts the writer `config` asks for (one that does nothing when the interval is 0). */
export function startSnapshotScheduler(app: App, store: BlockStore, dataDir: string, config: StateSyncSnapshotConfig, logger: Logger): SnapshotScheduler {
  let running: Promise<void> | undefined;
  let closed = false;
  const root = snapshotsDir(dataDir);
  const write = async (height: number): Promise<void> => {
    const started = Date.now();
    try {
      const block = encodeSnapshotBlock(store, height);
      const exported = await app.exportSnapshotStream(root);
      const snapshot = await finishSnapshot(exported, {
        keepRecent: config.snapshotKeepRecent,
        extras: block ? [{ name: SNAPSHOT_BLOCK_FILE, bytes: block }] : [],
      });
      logger.info('wrote state-sync snapshot', {
        height: snapshot.manifest.height,
        chunks: snapshot.manifest.chunks.length,
        bytes: snapshot.manifest.chunks.reduce((n, c) => n + c.bytes, 0),
        ms: Date.now() - started,
      });
    } catch (error) {
      logger.error('state-sync snapshot failed; the next interval tries again', { height, error: error instanceof Error ? error.message : String(error) });
    }
  };
  return {
    afterBlock(height: number): void {
      if (closed || config.snapshotInterval <= 0 || height % config.snapshotInterval !== 0) return;
      if (running) {
        logger.warn('skipping a state-sync snapshot: the previous one is still being written', { height });
        return;
      }
      running = write(height).finally(() => (running = undefined));
    },
    async close(): Promise<void> {
      closed = true;
      await running;
    },
  };
}
