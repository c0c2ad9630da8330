/**
 * Restoring a home's state from a snapshot: chunks are fetched from a ChunkSource (a local
 * directory now; peers later) and each checked against the manifest's sha256, then the stream
 * is imported into the SC (memiavl + FlatKV, natively) and the SS together — on a split node
 * `evm` only into the EVM SS, everything else only into the Cosmos SS — with earliest = latest
 * = the snapshot height on both sides, and the resulting app hash is checked against the
 * manifest and a trusted hash.
 *
 * Crash safety: `data/restore-in-progress.json` is written (and synced) before the first
 * store is touched and removed last. A home holding it has a partial import: the node refuses
 * to serve it, and the next restore discards every store it lists and starts over.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

import { StoreError } from '../errors.js';
import { cosmosStoreDir, evmStoreDir, type StateStoreConfig } from '../composite-state-store.js';
import { EvmStateStore } from '../evm-state-store.js';
import { MvccStore } from '../mvcc-store.js';
import { CommitStore, flatkvDir, memiavlDir, type CommitStoreOptions } from '../sc/commit-store.js';
import { syncDirectory, writeFileSynced } from './files.js';
import { chunkFileName, readManifest, type SnapshotManifest } from './format.js';

/** Where a restore gets a snapshot's chunks (a directory now; peers later). */
export interface ChunkSource {
  /** A short description for messages, e.g. the directory. */
  readonly name: string;
  /** The bytes of chunk `index` (at most `maxBytes`; a longer answer may be cut short). */
  chunk(index: number, maxBytes: number): Promise<Uint8Array>;
  /** The bytes of an extra file the manifest lists. */
  extra(name: string, maxBytes: number): Promise<Uint8Array>;
}

/** A chunk whose bytes do not match the manifest: fetch it again (from another peer if there is one). */
export class ChunkVerificationError extends StoreError {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message, 'STRATA_SNAPSHOT_CHUNK');
  }
}

/** The restored state's app hash is not the manifest's or the trusted one: the snapshot is wrong. */
export class AppHashMismatchError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_SNAPSHOT_APP_HASH');
  }
}

/** The home already holds state (or an unrelated import), so a restore would mix two states. */
export class RestoreTargetError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_RESTORE_TARGET');
  }
}

/** The file marking a restore that has not finished. */
export function restoreMarkerPath(dataDir: string): string {
  return join(dataDir, 'restore-in-progress.json');
}

/** The file recording the snapshot a home's state was restored from (height and app hash). */
export function restoredFromPath(dataDir: string): string {
  return join(dataDir, 'restored-from-snapshot.json');
}

/** The snapshot height a home's state was restored from, or undefined. */
export function restoredHeight(dataDir: string): number | undefined {
  try {
    const parsed = JSON.parse(readFileSync(restoredFromPath(dataDir), 'utf8')) as { height?: unknown };
    return typeof parsed.height === 'number' && Number.isSafeInteger(parsed.height) ? parsed.height : undefined;
  } catch {
    return undefined;
  }
}

/** Chunks read from a snapshot directory written by the snapshot writer. */
export class DirectoryChunkSource implements ChunkSource {
  constructor(readonly name: string) {}

  async chunk(index: number, maxBytes: number): Promise<Uint8Array> {
    return readBounded(join(this.name, chunkFileName(index)), maxBytes);
  }

  async extra(name: string, maxBytes: number): Promise<Uint8Array> {
    return readBounded(join(this.name, name), maxBytes);
  }

  /** The manifest of the directory. */
  manifest(): SnapshotManifest {
    return readManifest(this.name);
  }
}

async function readBounded(path: string, maxBytes: number): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, filled, buffer.length - filled);
      if (bytesRead === 0 || filled + bytesRead >= buffer.length) {
        filled += bytesRead;
        break;
      }
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await file.close();
  }
}

/** What restoreSnapshot needs. */
export interface RestoreOptions {
  dataDir: string;
  manifest: SnapshotManifest;
  source: ChunkSource;
  commit: CommitStoreOptions;
  ss: StateStoreConfig;
  /** An app hash the caller trusts (a light client's header); checked besides the manifest's. */
  trustedAppHash?: Uint8Array;
  /** Called after each verified chunk. */
  onChunk?: (index: number, total: number, bytes: number) => void;
  /** A chunk that fails verification is fetched again this many times before the restore fails (default 2). */
  chunkRetries?: number;
  /**
   * Directories under `dataDir` that `beforeCommit` writes (the block store): they must be
   * empty too, and a discarded restore removes them with the stores.
   */
  alsoWrites?: string[];
  /** Runs once the state is verified, before the restore is marked complete. */
  beforeCommit?: () => Promise<void>;
}

/** What a restore did. */
export interface RestoreResult {
  height: number;
  appHash: string;
  items: number;
  streamBytes: number;
  ssItems: number;
}

interface Marker {
  height: number;
  backend: string;
  split: boolean;
  also?: string[];
}

/** The state directories a restore writes, for a given SS configuration. */
function stateDirs(dataDir: string, backend: string, split: boolean): string[] {
  const dirs = [memiavlDir(dataDir), flatkvDir(dataDir), join(dataDir, backend)];
  if (split) dirs.push(evmStoreDir(dataDir));
  return dirs;
}

/**
 * Removes what an interrupted restore (found by its marker) left: every store it lists, the
 * staged stream and the marker itself. Returns whether there was one.
 */
export function discardInterruptedRestore(dataDir: string): boolean {
  const path = restoreMarkerPath(dataDir);
  if (!existsSync(path)) return false;
  let marker: Marker;
  try {
    marker = JSON.parse(readFileSync(path, 'utf8')) as Marker;
  } catch {
    // A marker cut short by the crash: the restore wrote nothing after it, but clear both layouts to be sure.
    marker = { height: 0, backend: 'pebbledb', split: true };
    rmSync(join(dataDir, 'rocksdb'), { recursive: true, force: true });
  }
  const also = (marker.also ?? []).filter((name) => /^[a-z0-9_.-]+$/.test(name) && name !== '.' && name !== '..');
  for (const dir of [...stateDirs(dataDir, marker.backend, marker.split), ...also.map((n) => join(dataDir, n))]) rmSync(dir, { recursive: true, force: true });
  rmSync(stagedStreamPath(dataDir), { force: true });
  rmSync(restoredFromPath(dataDir), { force: true });
  rmSync(path, { force: true });
  syncDirectory(dataDir);
  return true;
}

function stagedStreamPath(dataDir: string): string {
  return join(dataDir, 'restore-stream');
}

function populated(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Fetches and verifies chunk `index`, fetching it again on a mismatch up to `retries` times. */
async function verifiedChunk(source: ChunkSource, manifest: SnapshotManifest, index: number, retries: number): Promise<Uint8Array> {
  const expected = manifest.chunks[index]!;
  let last: ChunkVerificationError | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    const bytes = await source.chunk(index, expected.bytes);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length === expected.bytes && digest === expected.sha256) return bytes;
    last = new ChunkVerificationError(
      index,
      bytes.length !== expected.bytes
        ? `snapshot chunk ${index} of height ${manifest.height} from ${source.name} holds ${bytes.length} bytes, not the ${expected.bytes} its manifest lists (truncated or padded); fetch it again`
        : `snapshot chunk ${index} of height ${manifest.height} from ${source.name} hashes to ${digest}, not ${expected.sha256} as its manifest says (corrupt); fetch it again`,
    );
  }
  throw last!;
}

/**
 * Restores the state of an empty home (no SC or SS yet) from a snapshot. A previous restore
 * that was interrupted is discarded first. Throws ChunkVerificationError for a chunk that stays
 * wrong, AppHashMismatchError when the result is not the promised state (the home is left
 * empty again), RestoreTargetError when the home already holds state.
 */
export async function restoreSnapshot(options: RestoreOptions): Promise<RestoreResult> {
  const { dataDir, manifest, source, ss } = options;
  discardInterruptedRestore(dataDir);
  const cosmosDir = cosmosStoreDir(dataDir, ss.backend);
  const also = options.alsoWrites ?? [];
  for (const dir of [memiavlDir(dataDir), flatkvDir(dataDir), cosmosDir, evmStoreDir(dataDir), ...also.map((n) => join(dataDir, n))]) {
    if (populated(dir)) {
      throw new RestoreTargetError(
        `${dir} already holds state; a snapshot is restored only into an emptied data directory (remove data/ except priv_validator_state.json, or \`stratad init\` a new home)`,
      );
    }
  }
  if (options.trustedAppHash && hex(options.trustedAppHash) !== manifest.appHash) {
    throw new AppHashMismatchError(`the snapshot of height ${manifest.height} promises app hash ${manifest.appHash}, but the trusted app hash is ${hex(options.trustedAppHash)}; use a snapshot of the trusted chain`);
  }
  mkdirSync(dataDir, { recursive: true });
  const marker: Marker = { height: manifest.height, backend: ss.backend, split: ss.evmSsSplit, also };
  await writeFileSynced(restoreMarkerPath(dataDir), Buffer.from(`${JSON.stringify(marker)}\n`));
  syncDirectory(dataDir);

  const streamPath = stagedStreamPath(dataDir);
  let streamBytes = 0;
  const out = await open(streamPath, 'w');
  try {
    for (let index = 0; index < manifest.chunks.length; index++) {
      const bytes = await verifiedChunk(source, manifest, index, options.chunkRetries ?? 2);
      await out.write(bytes);
      streamBytes += bytes.length;
      options.onChunk?.(index, manifest.chunks.length, bytes.length);
    }
    // Not synced: the stream only feeds the imports below, and a crash before the restore
    // completes discards it with everything else the marker lists.
  } finally {
    await out.close();
  }

  // The SC and the SS read the same verified stream, each natively and off the event loop.
  const scImport = CommitStore.importSnapshot(dataDir, manifest.height, streamPath, options.commit);
  let ssCount = 0;
  const ssImport = (async () => {
    const cosmos = await MvccStore.open(cosmosDir, { backend: ss.backend });
    let evm: EvmStateStore | undefined;
    try {
      if (ss.evmSsSplit) evm = await EvmStateStore.open(evmStoreDir(dataDir), { backend: ss.backend, separateDbs: ss.evmSsSeparateDbs });
      ssCount = await cosmos.importSnapshotLeaves(manifest.height, streamPath, evm);
      for (const store of evm ? [cosmos, evm] : [cosmos]) {
        store.setEarliestVersion(manifest.height);
        store.setLatestVersion(manifest.height);
      }
    } finally {
      await evm?.close();
      await cosmos.close();
    }
  })();
  const [scResult, ssResult] = await Promise.allSettled([scImport, ssImport]);
  if (scResult.status === 'rejected') throw scResult.reason;
  if (ssResult.status === 'rejected') throw ssResult.reason;

  const sc = await CommitStore.open(dataDir, { ...options.commit });
  let appHash: string;
  let version: number;
  try {
    const info = sc.lastCommitInfo();
    appHash = hex(info.appHash);
    version = info.version;
  } finally {
    await sc.close();
  }
  if (version !== manifest.height || appHash !== manifest.appHash) {
    discardInterruptedRestore(dataDir);
    throw new AppHashMismatchError(
      `the state restored from the snapshot of height ${manifest.height} has app hash ${appHash} at height ${version}, ` +
        `not ${manifest.appHash} as its manifest says; the restore was discarded: use another snapshot`,
    );
  }
  rmSync(streamPath, { force: true });
  await options.beforeCommit?.();
  await writeFileSynced(restoredFromPath(dataDir), Buffer.from(`${JSON.stringify({ height: manifest.height, appHash })}\n`));
  // The commit point: without the marker the home is a complete restored state.
  rmSync(restoreMarkerPath(dataDir));
  syncDirectory(dataDir);
  return { height: manifest.height, appHash, items: manifest.items, streamBytes, ssItems: ssCount };
}

/** Reads an extra file of a snapshot and checks its hash against the manifest. */
export async function verifiedExtra(source: ChunkSource, manifest: SnapshotManifest, name: string): Promise<Uint8Array | undefined> {
  const info = manifest.extras.find((e) => e.name === name);
  if (!info) return undefined;
  const bytes = await source.extra(name, info.bytes);
  if (bytes.length !== info.bytes || createHash('sha256').update(bytes).digest('hex') !== info.sha256) {
    throw new ChunkVerificationError(-1, `snapshot file ${name} of height ${manifest.height} from ${source.name} does not match its manifest; fetch it again`);
  }
  return bytes;
}

