/**
 * The serving side of state sync, which every node runs: `/strata/snapshots/1` answers a
 * peer's list, manifest, chunk and extra-file requests from the home's data/snapshots/. The
 * directory is read at each request, so snapshots written or pruned meanwhile (or the whole
 * directory deleted by an operator) are offered or not as they are on disk; a snapshot gone
 * between the list and a request is answered `missing`, not an error. Reads of chunks are
 * capped at a few at once, whoever asks, so peers downloading in parallel cannot make a node
 * hold many 10 MB buffers.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';

import type { Logger } from '../log/logger.js';
import type { PeerHost } from '../p2p/index.js';
import { MAX_CHUNK_BYTES, SNAPSHOT_FORMAT, chunkFileName, listSnapshots, readManifest, type SnapshotManifest } from '../store/index.js';
import {
  MAX_LISTED_SNAPSHOTS,
  MAX_SNAPSHOT_MESSAGE_BYTES,
  SNAPSHOTS_PROTOCOL,
  parseSnapshotRequest,
  snapshotHash,
  type SnapshotBytesReply,
  type SnapshotListReply,
} from './snapshot-messages.js';
import { servedChunkForTest } from './snapshot-test-corruption.js';

/** Chunk (and extra-file) reads served at once. */
const CONCURRENT_READS = 4;

/** A counting semaphore: at most `limit` holders at once. */
class ReadSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/** The bytes of `path` if it holds at most `max` bytes; undefined when it does not exist. */
async function readUpTo(path: string, max: number): Promise<Uint8Array | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await file.stat();
    if (size > max) return undefined;
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await file.read(buffer, filled, size - filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await file.close();
  }
}

function manifestAt(root: string, height: number): SnapshotManifest | undefined {
  try {
    const manifest = readManifest(join(root, String(height)));
    return manifest.height === height ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** How long a parsed manifest is reused for chunk requests (a pruned snapshot's chunk files are gone at once anyway). */
const MANIFEST_TTL_MS = 10_000;

const MISSING: SnapshotBytesReply = { missing: true };

/** Serves `/strata/snapshots/1` from the snapshot directory `root` (data/snapshots/). */
export async function serveSnapshots(host: PeerHost, root: string, logger: Logger): Promise<void> {
  const slots = new ReadSlots(CONCURRENT_READS);
  // A download asks for every chunk; its manifest (up to megabytes of JSON) is parsed once, not per chunk.
  const manifests = new LRUCache<number, SnapshotManifest>({ max: 8, ttl: MANIFEST_TTL_MS });
  const manifestOf = (height: number): SnapshotManifest | undefined => {
    const cached = manifests.get(height);
    if (cached) return cached;
    const manifest = manifestAt(root, height);
    if (manifest) manifests.set(height, manifest);
    return manifest;
  };
  await host.handle(
    SNAPSHOTS_PROTOCOL,
    async (message, peer): Promise<SnapshotListReply | SnapshotBytesReply> => {
      const request = parseSnapshotRequest(message);
      switch (request.type) {
        case 'list':
          return {
            snapshots: listSnapshots(root)
              .filter((s) => s.manifest.format === SNAPSHOT_FORMAT)
              .slice(0, MAX_LISTED_SNAPSHOTS)
              .map(({ manifest }) => ({ height: manifest.height, format: manifest.format, chunks: manifest.chunks.length, hash: snapshotHash(manifest) })),
          };
        case 'manifest': {
          if (!manifestAt(root, request.height)) return MISSING;
          const bytes = await readFile(join(root, String(request.height), 'manifest.json')).catch(() => undefined);
          return bytes && bytes.length <= MAX_SNAPSHOT_MESSAGE_BYTES - 1024 ? { bytes } : MISSING;
        }
        case 'chunk': {
          const manifest = manifestOf(request.height);
          if (!manifest || request.index >= manifest.chunks.length) return MISSING;
          const bytes = await slots.run(() => readUpTo(join(root, String(request.height), chunkFileName(request.index)), MAX_CHUNK_BYTES));
          if (!bytes) return MISSING;
          logger.debug('served snapshot chunk', { peer: peer.nodeId, height: request.height, index: request.index, bytes: bytes.length });
          return { bytes: servedChunkForTest(request.index, bytes) };
        }
        case 'extra': {
          const manifest = manifestOf(request.height);
          if (!manifest?.extras.some((e) => e.name === request.name)) return MISSING;
          const bytes = await slots.run(() => readUpTo(join(root, String(request.height), request.name), MAX_CHUNK_BYTES));
          return bytes ? { bytes } : MISSING;
        }
      }
    },
    { maxMessageBytes: MAX_SNAPSHOT_MESSAGE_BYTES },
  );
}
