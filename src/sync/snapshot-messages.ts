/**
 * The messages of `/strata/snapshots/1`, on which a peer offers its state-sync snapshots: the
 * list of them, one manifest, one chunk or one extra file (the block at the snapshot height).
 *
 * Bound: every other protocol's messages are capped by `max-packet-msg-payload-size` (100 KB
 * by default, 1 MB suggested), which a block range respects by sending fewer blocks. A chunk
 * cannot be cut that way: it is the unit the manifest hashes, up to 10 MB, and splitting it
 * into packet-sized pieces would only add a reassembly step before the same hash check. So
 * this protocol has its own bound, one chunk plus room for the envelope; a manifest is sent
 * whole within the same bound (about 90,000 chunks, 900 GB of state).
 */
import { createHash } from 'node:crypto';

import { MAX_CHUNK_BYTES, validateManifest, type SnapshotManifest } from '../store/index.js';
import { SyncMessageError } from './errors.js';

/** Snapshots a peer offers, and their manifests, chunks and extra files. */
export const SNAPSHOTS_PROTOCOL = '/strata/snapshots/1';

/** The largest message on SNAPSHOTS_PROTOCOL: one chunk and its envelope. */
export const MAX_SNAPSHOT_MESSAGE_BYTES = MAX_CHUNK_BYTES + 64 * 1024;

/** Most snapshots one list reply may hold. */
export const MAX_LISTED_SNAPSHOTS = 64;

/** One snapshot as a peer lists it. */
export interface OfferedSnapshot {
  height: number;
  format: number;
  chunks: number;
  /** Hex sha256 identifying the snapshot's content (see snapshotHash). */
  hash: string;
}

/** A request on SNAPSHOTS_PROTOCOL. */
export type SnapshotRequest =
  | { type: 'list' }
  | { type: 'manifest'; height: number }
  | { type: 'chunk'; height: number; index: number }
  | { type: 'extra'; height: number; name: string };

/** Reply to `list`. */
export interface SnapshotListReply {
  snapshots: OfferedSnapshot[];
}

/** Reply to `manifest`, `chunk` and `extra`: the bytes, or `missing` when the peer no longer has them (pruned). */
export type SnapshotBytesReply = { bytes: Uint8Array } | { missing: true };

/**
 * The identity of a snapshot's content: sha256 over its format, height, app hash, item count
 * and every chunk's hash and size, so peers that wrote the same stream offer the same hash
 * and a downloader can take chunks from all of them.
 */
export function snapshotHash(manifest: SnapshotManifest): string {
  const h = createHash('sha256');
  h.update(`${manifest.format}/${manifest.height}/${manifest.appHash}/${manifest.items}/${manifest.chunks.length}`);
  for (const chunk of manifest.chunks) h.update(`/${chunk.sha256}:${chunk.bytes}`);
  return h.digest('hex');
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw new SyncMessageError(SNAPSHOTS_PROTOCOL, 'expected a map');
  }
  return value as Record<string, unknown>;
}

function count(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new SyncMessageError(SNAPSHOTS_PROTOCOL, `${field} must be an integer in ${min}..${max}`);
  }
  return value;
}

/** Checks a request. */
export function parseSnapshotRequest(value: unknown): SnapshotRequest {
  const m = record(value);
  switch (m.type) {
    case 'list':
      return { type: 'list' };
    case 'manifest':
      return { type: 'manifest', height: count(m.height, 'height', 1) };
    case 'chunk':
      return { type: 'chunk', height: count(m.height, 'height', 1), index: count(m.index, 'index', 0) };
    case 'extra':
      if (typeof m.name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(m.name)) throw new SyncMessageError(SNAPSHOTS_PROTOCOL, 'name must be a snapshot file name');
      return { type: 'extra', height: count(m.height, 'height', 1), name: m.name };
    default:
      throw new SyncMessageError(SNAPSHOTS_PROTOCOL, `unknown request type ${JSON.stringify(m.type)}`);
  }
}

/** Checks a list reply. */
export function parseSnapshotList(value: unknown): SnapshotListReply {
  const m = record(value);
  if (!Array.isArray(m.snapshots) || m.snapshots.length > MAX_LISTED_SNAPSHOTS) {
    throw new SyncMessageError(SNAPSHOTS_PROTOCOL, `snapshots must be a list of at most ${MAX_LISTED_SNAPSHOTS}`);
  }
  return {
    snapshots: m.snapshots.map((entry: unknown) => {
      const s = record(entry);
      if (typeof s.hash !== 'string' || !/^[0-9a-f]{64}$/.test(s.hash)) throw new SyncMessageError(SNAPSHOTS_PROTOCOL, 'hash must be 64 lowercase hex digits');
      return { height: count(s.height, 'height', 1), format: count(s.format, 'format', 0), chunks: count(s.chunks, 'chunks', 1), hash: s.hash };
    }),
  };
}

/** Checks a manifest, chunk or extra reply: the bytes, or undefined when the peer no longer has them. */
export function parseSnapshotBytes(value: unknown): Uint8Array | undefined {
  const m = record(value);
  if (m.missing === true) return undefined;
  if (!(m.bytes instanceof Uint8Array)) throw new SyncMessageError(SNAPSHOTS_PROTOCOL, 'bytes must be a byte string');
  return m.bytes;
}

/** Parses a manifest a peer sent; throws SyncMessageError when it is not a usable manifest. */
export function parseSnapshotManifest(bytes: Uint8Array, peer: string): SnapshotManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new SyncMessageError(SNAPSHOTS_PROTOCOL, `the manifest from ${peer} is not JSON (${(error as Error).message})`);
  }
  try {
    return validateManifest(parsed, `from peer ${peer}`);
  } catch (error) {
    throw new SyncMessageError(SNAPSHOTS_PROTOCOL, (error as Error).message);
  }
}
