/**
 * State sync of an empty home from its peers, in order:
 *
 * 1. The trusted block: fetched from every `rpc-servers` entry and checked against
 *    `trust-hash` (state-sync-trust.ts). A mismatch refuses the sync before anything is written.
 * 2. Discovery: every connected peer is asked for its snapshots (`/strata/snapshots/1`); the
 *    same snapshot offered by several peers (same content hash) is downloaded from all of them.
 *    Snapshots at or below the trust height come first, newest first; newer ones are used when
 *    there is none (the chain of blocks verifies them forward).
 * 3. Verification of the snapshot height through the blocks between it and the trusted block
 *    (state-sync-chain.ts): its block hash and the app hash after it are then trusted, and the
 *    manifest must promise that app hash.
 * 4. The restore (store/snapshots): chunks fetched in parallel from the offering peers, each
 *    checked against the manifest (state-sync-chunks.ts), imported into the SC and the SS as
 *    app.toml routes them, the result's app hash checked against the trusted one, the block at
 *    the snapshot height stored, and only then the restore marked complete. A kill -9 at any
 *    point leaves the restore marker, and the next start discards the partial import.
 *
 * A snapshot that fails (a peer gone, chunks nobody serves intact, a wrong app hash) is
 * discarded and the next one tried; discovery is asked again until one succeeds.
 */
import { readdirSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from '../log/logger.js';
import type { Peer, PeerHost } from '../p2p/index.js';
import {
  RestoreTargetError,
  SNAPSHOT_FORMAT,
  discardInterruptedRestore,
  evmStoreDir,
  restoreSnapshot,
  type CommitStoreOptions,
  type RestoreResult,
  type SnapshotManifest,
  type StateStoreConfig,
} from '../store/index.js';
import { PeerChunkSource, requestSnapshotBytes } from './state-sync-chunks.js';
import { verifySnapshotHeight, type VerifiedSnapshotHeight } from './state-sync-chain.js';
import { stateSyncCrashPoint } from './state-sync-crash-hook.js';
import { StateSyncError } from './state-sync-errors.js';
import { downloadProgress } from './state-sync-progress.js';
import { fetchTrustedHeader, type TrustSettings, type TrustedHeader } from './state-sync-trust.js';
import { MAX_SNAPSHOT_MESSAGE_BYTES, SNAPSHOTS_PROTOCOL, parseSnapshotList, parseSnapshotManifest, snapshotHash, type OfferedSnapshot } from './snapshot-messages.js';
import type { ValidatorSet } from './verify.js';

/** The block file that travels with a snapshot, as the node reads and stores it. */
export interface SnapshotBlockHandler {
  /** The extra file's name in the manifest. */
  fileName: string;
  /** Throws unless `bytes` hold the block at `height` whose hash is `blockHash`. */
  check(bytes: Uint8Array, height: number, blockHash: Buffer): void;
  /** Stores it in the (empty) block store; runs before the restore is marked complete. */
  store(bytes: Uint8Array): Promise<void>;
}

/** What a state sync needs. */
export interface StateSyncDeps {
  host: PeerHost;
  dataDir: string;
  trust: TrustSettings;
  validators: ValidatorSet;
  /** genesis `evm_chain_id`. */
  evmChainId: bigint;
  commit: CommitStoreOptions;
  ss: StateStoreConfig;
  snapshotBlock: SnapshotBlockHandler;
  /** `persistent_peers` count: discovery waits (a little) for them all to connect. */
  expectedPeers: number;
  logger: Logger;
  /** How long discovery waits for more peers after the first (default 3 s). */
  discoveryMs?: number;
  requestTimeoutMs?: number;
}

/** The outcome of a state sync. */
export interface StateSyncResult extends RestoreResult {
  trusted: TrustedHeader;
  seconds: number;
  peers: number;
}

/** One snapshot and the peers that offer it. */
interface Candidate {
  offer: OfferedSnapshot;
  peers: Set<string>;
}

const LIST_TIMEOUT_MS = 10_000;
const REDISCOVER_MS = 5_000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function populated(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/** Waits until a peer is connected, then up to `ms` more for the expected number. */
async function awaitPeers(deps: StateSyncDeps, ms: number): Promise<Peer[]> {
  let waitingSince = Date.now();
  while (deps.host.peers().length === 0) {
    if (Date.now() - waitingSince > 10_000) {
      deps.logger.info('state sync: waiting for a peer to connect (persistent_peers)', { expected: deps.expectedPeers });
      waitingSince = Date.now();
    }
    await sleep(200);
  }
  const until = Date.now() + ms;
  while (deps.host.peers().length < deps.expectedPeers && Date.now() < until) await sleep(100);
  return deps.host.peers();
}

/** Asks every connected peer for its snapshots; the usable ones, best first. */
async function discover(deps: StateSyncDeps, rejected: ReadonlySet<string>): Promise<Candidate[]> {
  const peers = await awaitPeers(deps, deps.discoveryMs ?? 3_000);
  const byKey = new Map<string, Candidate>();
  await Promise.all(
    peers.map(async (peer) => {
      try {
        const reply = parseSnapshotList(
          await deps.host.request(peer, SNAPSHOTS_PROTOCOL, { type: 'list' }, { timeoutMs: LIST_TIMEOUT_MS, expectReply: true, maxMessageBytes: MAX_SNAPSHOT_MESSAGE_BYTES }),
        );
        for (const offer of reply.snapshots) {
          if (offer.format !== SNAPSHOT_FORMAT) continue;
          const key = `${offer.height}/${offer.hash}`;
          if (rejected.has(key)) continue;
          const known = byKey.get(key);
          if (known) known.peers.add(peer.nodeId);
          else {
            byKey.set(key, { offer, peers: new Set([peer.nodeId]) });
            deps.logger.info('state sync: discovered snapshot', { height: offer.height, format: offer.format, chunks: offer.chunks, hash: offer.hash, peer: peer.nodeId });
          }
        }
      } catch (error) {
        deps.logger.debug('state sync: snapshot list request failed', { peer: peer.nodeId, error: message(error) });
      }
    }),
  );
  const trustHeight = deps.trust.trustHeight;
  const rank = (c: Candidate): number => (c.offer.height <= trustHeight ? 0 : 1);
  return [...byKey.values()].sort((a, b) => rank(a) - rank(b) || b.offer.height - a.offer.height || b.peers.size - a.peers.size);
}

/** The manifest of `candidate` from the first offering peer whose manifest has the offered hash. */
async function fetchManifest(deps: StateSyncDeps, candidate: Candidate): Promise<SnapshotManifest> {
  let last = 'no offering peer is connected';
  for (const peer of deps.host.peers().filter((p) => candidate.peers.has(p.nodeId))) {
    try {
      const bytes = await requestSnapshotBytes(deps.host, peer, { type: 'manifest', height: candidate.offer.height }, deps.requestTimeoutMs ?? 30_000);
      if (!bytes) {
        last = `peer ${peer.nodeId} no longer has it`;
        continue;
      }
      const manifest = parseSnapshotManifest(bytes, peer.nodeId);
      if (manifest.height !== candidate.offer.height || snapshotHash(manifest) !== candidate.offer.hash) {
        last = `peer ${peer.nodeId} sent a manifest that is not the snapshot it offered`;
        candidate.peers.delete(peer.nodeId);
        continue;
      }
      return manifest;
    } catch (error) {
      last = message(error);
    }
  }
  throw new StateSyncError(`cannot fetch the manifest of snapshot ${candidate.offer.height}: ${last}`);
}

/** Removes an EVM SS a failed attempt left in a home that holds no state (spec: before state syncing). */
function removeStaleEvmSs(deps: StateSyncDeps): void {
  const dir = evmStoreDir(deps.dataDir);
  if (!populated(dir)) return;
  deps.logger.warn('removing a stale EVM state store left by an earlier attempt before state syncing', { dir });
  rmSync(dir, { recursive: true, force: true });
}

/** Restores `candidate`, verified against the trusted chain. */
async function restoreCandidate(deps: StateSyncDeps, candidate: Candidate, trusted: TrustedHeader): Promise<RestoreResult> {
  const { logger } = deps;
  const manifest = await fetchManifest(deps, candidate);
  const verified: VerifiedSnapshotHeight = await verifySnapshotHeight(
    { host: deps.host, validators: deps.validators, evmChainId: deps.evmChainId, trustHeight: trusted.height, trustHash: trusted.hash },
    manifest.height,
  );
  const trustedAppHash = verified.appHash.toString('hex');
  if (manifest.appHash !== trustedAppHash) {
    throw new StateSyncError(`snapshot ${manifest.height} promises app hash ${manifest.appHash.toUpperCase()}, but the trusted chain says ${trustedAppHash.toUpperCase()}`);
  }
  const source = new PeerChunkSource(deps.host, manifest, candidate.peers, logger);
  const info = manifest.extras.find((e) => e.name === deps.snapshotBlock.fileName);
  if (!info) throw new StateSyncError(`snapshot ${manifest.height} carries no ${deps.snapshotBlock.fileName} (the block at its height)`);
  // Fetched (and checked) before the import: the peers may prune the snapshot meanwhile.
  const blockBytes = await source.extra(info.name, info.bytes);
  deps.snapshotBlock.check(blockBytes, manifest.height, verified.blockHash);

  const totalBytes = manifest.chunks.reduce((n, c) => n + c.bytes, 0);
  logger.info('state sync: restoring snapshot', {
    height: manifest.height,
    appHash: manifest.appHash.toUpperCase(),
    chunks: manifest.chunks.length,
    mb: (totalBytes / 1e6).toFixed(1),
    peers: candidate.peers.size,
    backend: deps.ss.backend,
    evmSsSplit: deps.ss.evmSsSplit,
  });
  removeStaleEvmSs(deps);
  const progress = downloadProgress(manifest.height, manifest.chunks.length, totalBytes, logger);
  try {
    return await restoreSnapshot({
      dataDir: deps.dataDir,
      manifest,
      source,
      commit: deps.commit,
      ss: deps.ss,
      trustedAppHash: verified.appHash,
      alsoWrites: ['blockstore'],
      onChunk: (index, total, bytes) => {
        progress.chunk(index, total, bytes);
        if (index + 1 === total) {
          progress.stop();
          logger.info('state sync: every chunk verified; importing into the state commitment and the state store', { height: manifest.height });
        }
        stateSyncCrashPoint({ at: 'chunk', index });
      },
      beforeCommit: async () => {
        await deps.snapshotBlock.store(blockBytes);
        stateSyncCrashPoint({ at: 'before-commit' });
      },
    });
  } finally {
    progress.stop();
    source.close();
  }
}

/**
 * State-syncs the empty home at `deps.dataDir` from peers. Throws TrustedHeaderError (nothing
 * written) when the trusted block cannot be established, RestoreTargetError when the home
 * holds state; otherwise retries snapshots until one restores.
 */
export async function stateSync(deps: StateSyncDeps): Promise<StateSyncResult> {
  const started = Date.now();
  const { logger } = deps;
  logger.info('state sync: fetching the trusted block from rpc-servers', { height: deps.trust.trustHeight, servers: deps.trust.rpcServers.join(',') });
  const trusted = await fetchTrustedHeader(deps.trust);
  logger.info('state sync: trusted block verified', { height: trusted.height, hash: trusted.hash.toUpperCase() });
  const rejected = new Set<string>();
  let lastNotice = 0;
  for (;;) {
    const candidates = await discover(deps, rejected);
    for (const candidate of candidates) {
      const key = `${candidate.offer.height}/${candidate.offer.hash}`;
      try {
        const result = await restoreCandidate(deps, candidate, trusted);
        const seconds = (Date.now() - started) / 1000;
        logger.info('state sync: snapshot restored', {
          height: result.height,
          appHash: result.appHash.toUpperCase(),
          items: result.items,
          mb: (result.streamBytes / 1e6).toFixed(1),
          seconds: seconds.toFixed(1),
        });
        return { ...result, trusted, seconds, peers: candidate.peers.size };
      } catch (error) {
        if (error instanceof RestoreTargetError) throw error;
        discardInterruptedRestore(deps.dataDir);
        rejected.add(key);
        logger.warn('state sync: snapshot failed; trying another', { height: candidate.offer.height, error: message(error) });
      }
    }
    if (Date.now() - lastNotice > 10_000) {
      lastNotice = Date.now();
      logger.info('state sync: no usable snapshot offered by peers yet; asking again', { peers: deps.host.peers().length, trustHeight: trusted.height });
    }
    // Snapshots rejected for a passing reason (a peer gone) may serve later; new ones appear every snapshot-interval.
    if (candidates.length === 0 && rejected.size > 0) rejected.clear();
    await sleep(REDISCOVER_MS);
  }
}
