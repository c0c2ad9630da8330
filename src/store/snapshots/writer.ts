/**
 * Writing a snapshot: the commit store exports its stream into a temporary directory under
 * `data/snapshots/` (the one step that holds the commitment), then the stream is cut into
 * chunks, each hashed and synced, the manifest written last, and the directory renamed into
 * place — a reader never sees a partial snapshot. `data/snapshots/` may vanish at any moment
 * (an operator freeing space): the write then fails with SnapshotWriteError and nothing is left.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { StoreError } from '../errors.js';
import type { CommitStore } from '../sc/commit-store.js';
import { syncDirectory, writeFileSynced } from './files.js';
import {
  MAX_CHUNK_BYTES,
  MIN_CHUNK_BYTES,
  SNAPSHOT_FORMAT,
  chunkFileName,
  listSnapshots,
  type ChunkInfo,
  type ExtraFileInfo,
  type LocalSnapshot,
  type SnapshotManifest,
} from './format.js';

/** A snapshot could not be written; the node goes on, and the next interval tries again. */
export class SnapshotWriteError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_SNAPSHOT_WRITE');
  }
}

/** An exported stream waiting to be cut into chunks (see finishSnapshot). */
export interface ExportedStream {
  root: string;
  tmpDir: string;
  streamPath: string;
  height: number;
  appHash: Uint8Array;
  items: number;
}

/** How finishSnapshot cuts and keeps snapshots. */
export interface FinishOptions {
  /** Chunk size, MIN_CHUNK_BYTES..MAX_CHUNK_BYTES (default MAX_CHUNK_BYTES). */
  chunkBytes?: number;
  /** Snapshots kept, newest first, this one included (default 2; 0 keeps all). */
  keepRecent?: number;
  /** Files stored beside the chunks and listed with their hashes (the node's block at the height). */
  extras?: ReadonlyArray<{ name: string; bytes: Uint8Array }>;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function failed(root: string, error: unknown): SnapshotWriteError {
  const message = error instanceof Error ? error.message : String(error);
  return new SnapshotWriteError(`cannot write a snapshot under ${root}: ${message}; check free space and permissions`);
}

/**
 * Exports the last committed state of `sc` into a temporary directory of `root`. No commit may
 * run meanwhile (the commit store refuses to export with changes staged), so the caller
 * runs this between blocks.
 */
export async function exportStream(sc: CommitStore, root: string): Promise<ExportedStream> {
  const info = sc.lastCommitInfo();
  if (info.version < 1) throw new SnapshotWriteError('there is no committed state to snapshot yet; wait for the first block');
  const tmpDir = join(root, `${info.version}.tmp-${process.pid}`);
  const streamPath = join(tmpDir, 'stream');
  try {
    mkdirSync(tmpDir, { recursive: true });
    rmSync(streamPath, { force: true });
    const stats = await sc.exportSnapshot(streamPath);
    if (stats.version !== info.version) {
      throw new SnapshotWriteError(`the state moved from height ${info.version} to ${stats.version} during the export`);
    }
    return { root, tmpDir, streamPath, height: info.version, appHash: info.appHash, items: stats.items };
  } catch (error) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw error instanceof SnapshotWriteError ? error : failed(root, error);
  }
}

/** Cuts an exported stream into hashed chunks, writes the manifest, renames it into place and prunes. */
export async function finishSnapshot(exported: ExportedStream, options: FinishOptions = {}): Promise<LocalSnapshot> {
  const chunkBytes = options.chunkBytes ?? MAX_CHUNK_BYTES;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES) {
    throw new SnapshotWriteError(`chunk size ${chunkBytes} is outside ${MIN_CHUNK_BYTES}..${MAX_CHUNK_BYTES} bytes; pick one inside`);
  }
  const { root, tmpDir, streamPath, height } = exported;
  const finalDir = join(root, String(height));
  try {
    const chunks: ChunkInfo[] = [];
    const input = await open(streamPath, 'r');
    try {
      const buffer = Buffer.allocUnsafe(chunkBytes);
      for (;;) {
        let filled = 0;
        while (filled < chunkBytes) {
          const { bytesRead } = await input.read(buffer, filled, chunkBytes - filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        if (filled === 0) break;
        const bytes = buffer.subarray(0, filled);
        await writeFileSynced(join(tmpDir, chunkFileName(chunks.length)), bytes);
        chunks.push({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: filled });
        if (filled < chunkBytes) break;
      }
    } finally {
      await input.close();
    }
    await rm(streamPath, { force: true });
    if (chunks.length === 0) throw new SnapshotWriteError('the commit store exported an empty stream');
    const extras: ExtraFileInfo[] = [];
    for (const extra of options.extras ?? []) {
      await writeFileSynced(join(tmpDir, extra.name), extra.bytes);
      extras.push({ name: extra.name, sha256: createHash('sha256').update(extra.bytes).digest('hex'), bytes: extra.bytes.length });
    }
    const manifest: SnapshotManifest = { format: SNAPSHOT_FORMAT, height, appHash: hex(exported.appHash), items: exported.items, chunks, extras };
    await writeFileSynced(join(tmpDir, 'manifest.json'), Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`));
    syncDirectory(tmpDir);
    rmSync(finalDir, { recursive: true, force: true });
    renameSync(tmpDir, finalDir);
    syncDirectory(root);
    pruneSnapshots(root, options.keepRecent ?? 2);
    return { dir: finalDir, manifest };
  } catch (error) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw error instanceof SnapshotWriteError ? error : failed(root, error);
  }
}

/** Exports and finishes one snapshot of `sc`'s committed state under `root`. */
export async function writeSnapshot(sc: CommitStore, root: string, options: FinishOptions = {}): Promise<LocalSnapshot> {
  return finishSnapshot(await exportStream(sc, root), options);
}

/**
 * Keeps the `keepRecent` newest snapshots under `root` (0 keeps all) and removes the rest,
 * with any directory a write of this or an earlier process left behind.
 */
export function pruneSnapshots(root: string, keepRecent: number): void {
  const kept = listSnapshots(root);
  if (keepRecent > 0) for (const old of kept.slice(keepRecent)) rmSync(old.dir, { recursive: true, force: true });
  const keep = new Set(kept.slice(0, keepRecent > 0 ? keepRecent : kept.length).map((s) => String(s.manifest.height)));
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    // Another process's temp directory is in use; only ours (this pid) or complete leftovers go.
    const tmp = /^\d+\.tmp-(\d+)$/.exec(name);
    if (tmp && !processAlive(Number(tmp[1]))) rmSync(join(root, name), { recursive: true, force: true });
    if (/^[1-9][0-9]*$/.test(name) && !keep.has(name) && keepRecent > 0) rmSync(join(root, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
