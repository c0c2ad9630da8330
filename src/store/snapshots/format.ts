/**
 * State-sync snapshots on disk: `data/snapshots/<height>/` holds `manifest.json` and the chunk
 * files, which together are the typed item stream the commit store exports (memiavl stores in
 * IAVL export order, then FlatKV's rows), cut into pieces of at most 10 MB. Format 1 stores the
 * stream uncompressed: the state is mostly hashes, which do not compress, and an importer that
 * inflates nothing runs at disk speed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { StoreError } from '../errors.js';

/** The snapshot format this node writes and reads. */
export const SNAPSHOT_FORMAT = 1;
/** Largest chunk, as the Cosmos SDK cuts its stream (10e6 bytes). */
export const MAX_CHUNK_BYTES = 10_000_000;
/** Smallest chunk size a writer may be asked for. */
export const MIN_CHUNK_BYTES = 1024;
/** Most chunks one manifest may list (10 TB of state at the largest chunk size). */
export const MAX_CHUNKS = 1_000_000;
/** Largest manifest file read (a full MAX_CHUNKS list stays below it). */
const MAX_MANIFEST_BYTES = 128 * 1024 * 1024;
/** Most extra files (node-level attachments such as the block at the height) in one snapshot. */
const MAX_EXTRA_FILES = 16;

/** One chunk as the manifest lists it. */
export interface ChunkInfo {
  /** Hex sha256 of the chunk's bytes. */
  sha256: string;
  bytes: number;
}

/** A file stored beside the chunks (written and verified, but opaque to this layer). */
export interface ExtraFileInfo {
  name: string;
  sha256: string;
  bytes: number;
}

/** `manifest.json` of one snapshot. */
export interface SnapshotManifest {
  format: number;
  height: number;
  /** Hex app hash of the state at `height`. */
  appHash: string;
  /** Items in the stream. */
  items: number;
  chunks: ChunkInfo[];
  extras: ExtraFileInfo[];
}

/** A snapshot directory or manifest that cannot be used; the message says what to do. */
export class SnapshotFormatError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_SNAPSHOT_FORMAT');
  }
}

/** The directory holding a home's snapshots. */
export function snapshotsDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

/** The file name of chunk `index` (zero-padded so a listing sorts in stream order). */
export function chunkFileName(index: number): string {
  return `chunk-${String(index).padStart(7, '0')}`;
}

const HEX64 = /^[0-9a-f]{64}$/;
const EXTRA_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

function isCount(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;
}

/** Checks a parsed manifest field by field; throws SnapshotFormatError naming the first bad one. */
export function validateManifest(value: unknown, where: string): SnapshotManifest {
  const bad = (what: string): never => {
    throw new SnapshotFormatError(`snapshot manifest ${where} is not usable: ${what}; take or fetch the snapshot again`);
  };
  if (typeof value !== 'object' || value === null) return bad('it is not a JSON object');
  const m = value as Record<string, unknown>;
  if (m.format !== SNAPSHOT_FORMAT) return bad(`format ${JSON.stringify(m.format)} is not ${SNAPSHOT_FORMAT}, the only format this node reads`);
  if (!isCount(m.height, Number.MAX_SAFE_INTEGER) || m.height < 1) return bad('height must be a positive integer');
  if (typeof m.appHash !== 'string' || !HEX64.test(m.appHash)) return bad('appHash must be 64 lowercase hex digits');
  if (!isCount(m.items, Number.MAX_SAFE_INTEGER)) return bad('items must be a non-negative integer');
  if (!Array.isArray(m.chunks) || m.chunks.length === 0 || m.chunks.length > MAX_CHUNKS) return bad(`chunks must list 1 to ${MAX_CHUNKS} chunks`);
  const chunks = m.chunks.map((c: unknown, i: number): ChunkInfo => {
    const chunk = (c ?? {}) as Record<string, unknown>;
    if (typeof chunk.sha256 !== 'string' || !HEX64.test(chunk.sha256)) return bad(`chunk ${i} has no sha256 of 64 lowercase hex digits`);
    if (!isCount(chunk.bytes, MAX_CHUNK_BYTES) || chunk.bytes === 0) return bad(`chunk ${i} must hold 1 to ${MAX_CHUNK_BYTES} bytes`);
    return { sha256: chunk.sha256, bytes: chunk.bytes };
  });
  const extrasIn = m.extras ?? [];
  if (!Array.isArray(extrasIn) || extrasIn.length > MAX_EXTRA_FILES) return bad(`extras must list at most ${MAX_EXTRA_FILES} files`);
  const extras = extrasIn.map((e: unknown, i: number): ExtraFileInfo => {
    const extra = (e ?? {}) as Record<string, unknown>;
    if (typeof extra.name !== 'string' || !EXTRA_NAME.test(extra.name) || extra.name.startsWith('chunk-') || extra.name === 'manifest.json') {
      return bad(`extra file ${i} has an unusable name`);
    }
    if (typeof extra.sha256 !== 'string' || !HEX64.test(extra.sha256)) return bad(`extra file ${extra.name} has no sha256`);
    if (!isCount(extra.bytes, MAX_CHUNK_BYTES)) return bad(`extra file ${extra.name} must hold at most ${MAX_CHUNK_BYTES} bytes`);
    return { name: extra.name, sha256: extra.sha256, bytes: extra.bytes };
  });
  return { format: SNAPSHOT_FORMAT, height: m.height, appHash: m.appHash, items: m.items, chunks, extras };
}

/** Reads and checks `<dir>/manifest.json`. */
export function readManifest(dir: string): SnapshotManifest {
  const path = join(dir, 'manifest.json');
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_MANIFEST_BYTES) throw new SnapshotFormatError(`snapshot manifest ${path} is larger than ${MAX_MANIFEST_BYTES} bytes; it is not a Strata snapshot`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SnapshotFormatError) throw error;
    throw new SnapshotFormatError(`cannot read snapshot manifest ${path} (${(error as Error).message}); check the snapshot directory`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SnapshotFormatError(`snapshot manifest ${path} is not JSON (${(error as Error).message}); take or fetch the snapshot again`);
  }
  return validateManifest(parsed, path);
}

/** A finished snapshot of a home: its directory and manifest. */
export interface LocalSnapshot {
  dir: string;
  manifest: SnapshotManifest;
}

/**
 * The finished snapshots under `dir`, newest first. Directories being written (`*.tmp-*`) and
 * ones whose manifest cannot be read are left out; a missing `dir` holds none.
 */
export function listSnapshots(dir: string): LocalSnapshot[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: LocalSnapshot[] = [];
  for (const name of names) {
    if (!/^[1-9][0-9]*$/.test(name)) continue;
    try {
      const manifest = readManifest(join(dir, name));
      if (String(manifest.height) === name) out.push({ dir: join(dir, name), manifest });
    } catch {
      // A snapshot that cannot be read is not offered; pruning removes it in time.
    }
  }
  return out.sort((a, b) => b.manifest.height - a.manifest.height);
}
