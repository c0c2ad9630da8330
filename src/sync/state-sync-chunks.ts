/**
 * A ChunkSource over peers: the chunks of one snapshot fetched in parallel from every peer that
 * offers it (chunk i goes first to the i-th of them, so the work is spread), a window ahead of
 * the chunk the restore is writing. Each chunk's size and sha256 are checked against the
 * manifest on arrival: a corrupt or truncated chunk is rejected, logged, and fetched again from
 * another peer when there is one (the peer that sent it is asked only when no other can be).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from '../log/logger.js';
import type { Peer, PeerHost } from '../p2p/index.js';
import { ChunkVerificationError, type ChunkSource, type SnapshotManifest } from '../store/index.js';
import { MAX_SNAPSHOT_MESSAGE_BYTES, SNAPSHOTS_PROTOCOL, parseSnapshotBytes, type SnapshotRequest } from './snapshot-messages.js';

/** Settings of a PeerChunkSource. */
export interface PeerChunkSourceOptions {
  /** Chunks fetched ahead of the one being written (bounds memory: each is up to 10 MB). */
  window?: number;
  /** How long one chunk request may take. */
  timeoutMs?: number;
  /** Rounds over all offering peers before a chunk is given up. */
  rounds?: number;
  /** Told of each chunk rejected by its hash or size. */
  onRejected?: (index: number, peer: string, reason: string) => void;
}

/** The snapshot-protocol request `request` to `peer`: the bytes, or undefined when the peer no longer has them. */
export async function requestSnapshotBytes(host: PeerHost, peer: Peer, request: SnapshotRequest, timeoutMs: number): Promise<Uint8Array | undefined> {
  const reply = await host.request(peer, SNAPSHOTS_PROTOCOL, request, { timeoutMs, expectReply: true, maxMessageBytes: MAX_SNAPSHOT_MESSAGE_BYTES });
  return parseSnapshotBytes(reply);
}

/** Chunks of `manifest` from the peers (by node id) that offer it. */
export class PeerChunkSource implements ChunkSource {
  readonly name: string;
  readonly #inflight = new Map<number, Promise<Uint8Array>>();
  /** Peers that sent a bad chunk: asked again only when no other peer can answer. */
  readonly #suspect = new Set<string>();
  readonly #window: number;
  readonly #timeoutMs: number;
  readonly #rounds: number;
  readonly #extras = new Map<string, Uint8Array>();
  #closed = false;

  constructor(
    private readonly host: PeerHost,
    private readonly manifest: SnapshotManifest,
    private readonly offering: ReadonlySet<string>,
    private readonly logger: Logger,
    private readonly options: PeerChunkSourceOptions = {},
  ) {
    this.name = `peers offering snapshot ${manifest.height}`;
    this.#window = Math.max(1, options.window ?? Math.min(8, Math.max(4, 2 * offering.size)));
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#rounds = options.rounds ?? 5;
  }

  /** The verified bytes of chunk `index`; starts fetching the next ones meanwhile. */
  async chunk(index: number): Promise<Uint8Array> {
    for (let next = index; !this.#closed && next < Math.min(this.manifest.chunks.length, index + this.#window); next++) {
      if (!this.#inflight.has(next)) {
        const fetching = this.#fetch(next);
        fetching.catch(() => undefined);
        this.#inflight.set(next, fetching);
      }
    }
    const fetching = this.#inflight.get(index);
    if (!fetching) throw new ChunkVerificationError(index, `the download of snapshot ${this.manifest.height} was stopped`);
    try {
      return await fetching;
    } finally {
      this.#inflight.delete(index);
    }
  }

  /** Stops fetching ahead: chunks in flight finish, none is asked for again (the restore has failed or ended). */
  close(): void {
    this.#closed = true;
    this.#inflight.clear();
  }

  /** An extra file, fetched once (and kept: the snapshot may be pruned at the peers before the restore asks). */
  async extra(name: string, maxBytes: number): Promise<Uint8Array> {
    const kept = this.#extras.get(name);
    if (kept) return kept;
    const info = this.manifest.extras.find((e) => e.name === name);
    let lastError = 'no peer offering the snapshot answered';
    for (let round = 0; round < this.#rounds; round++) {
      for (const peer of this.#candidates(new Set())) {
        try {
          const bytes = await requestSnapshotBytes(this.host, peer, { type: 'extra', height: this.manifest.height, name }, this.#timeoutMs);
          if (!bytes || bytes.length > maxBytes) continue;
          if (info && createHash('sha256').update(bytes).digest('hex') !== info.sha256) {
            this.#reject(-1, peer, `file ${name} does not hash to its manifest's sha256`);
            continue;
          }
          this.#extras.set(name, bytes);
          return bytes;
        } catch (error) {
          lastError = error instanceof Error ? error.message : String(error);
        }
      }
      await sleep(500);
    }
    throw new ChunkVerificationError(-1, `cannot fetch snapshot file ${name} of height ${this.manifest.height} from peers (${lastError}); state sync starts over`);
  }

  /** Peers offering the snapshot and connected, not yet tried for this chunk; suspects last. */
  #candidates(tried: ReadonlySet<string>): Peer[] {
    const connected = this.host.peers().filter((p) => this.offering.has(p.nodeId) && !tried.has(p.nodeId));
    connected.sort((a, b) => a.nodeId.localeCompare(b.nodeId));
    const trusted = connected.filter((p) => !this.#suspect.has(p.nodeId));
    return trusted.length > 0 ? trusted : connected;
  }

  #reject(index: number, peer: Peer, reason: string): void {
    this.#suspect.add(peer.nodeId);
    this.logger.warn('rejected a snapshot chunk from a peer; fetching it again from another', { height: this.manifest.height, chunk: index, peer: peer.nodeId, reason });
    this.options.onRejected?.(index, peer.nodeId, reason);
  }

  async #fetch(index: number): Promise<Uint8Array> {
    const expected = this.manifest.chunks[index]!;
    let lastError = 'no peer offering the snapshot is connected';
    for (let round = 0; round < this.#rounds && !this.#closed; round++) {
      const tried = new Set<string>();
      for (let attempt = 0; !this.#closed; attempt++) {
        const candidates = this.#candidates(tried);
        if (candidates.length === 0) break;
        // Spread the first attempts: chunk i to the i-th peer.
        const peer = attempt === 0 ? candidates[index % candidates.length]! : candidates[0]!;
        tried.add(peer.nodeId);
        let bytes: Uint8Array | undefined;
        try {
          bytes = await requestSnapshotBytes(this.host, peer, { type: 'chunk', height: this.manifest.height, index }, this.#timeoutMs);
        } catch (error) {
          lastError = error instanceof Error ? error.message : String(error);
          continue;
        }
        if (!bytes) {
          lastError = `peer ${peer.nodeId} no longer has the snapshot`;
          continue;
        }
        if (bytes.length !== expected.bytes) {
          this.#reject(index, peer, `${bytes.length} bytes, not the ${expected.bytes} the manifest lists (truncated or padded)`);
          lastError = 'the chunk was truncated or padded';
          continue;
        }
        const digest = createHash('sha256').update(bytes).digest('hex');
        if (digest !== expected.sha256) {
          this.#reject(index, peer, `sha256 ${digest}, not the manifest's ${expected.sha256} (corrupt)`);
          lastError = 'the chunk was corrupt';
          continue;
        }
        return bytes;
      }
      await sleep(500 * (round + 1));
    }
    throw new ChunkVerificationError(index, `cannot fetch a valid chunk ${index} of snapshot ${this.manifest.height} from any peer (last: ${lastError}); state sync starts over`);
  }
}
