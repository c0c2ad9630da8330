/**
 * `/strata/snapshots/1` between real peer hosts on 127.0.0.1, in one process: two peers serve
 * the same snapshot from their data/snapshots/ (one with damaged chunk files on disk); a third
 * lists, fetches the manifest, and downloads every chunk through PeerChunkSource — a 10 MB
 * chunk passes although max-packet-msg-payload-size is 4 KB; truncated and corrupt chunks are
 * rejected and fetched from the intact peer; chunks nobody serves intact fail with
 * ChunkVerificationError. The message parsers refuse malformed input.
 */
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeKey } from '../../src/chain/keys.js';
import { memoryLogger } from '../../src/log/logger.js';
import { PeerHost } from '../../src/p2p/index.js';
import { ChunkVerificationError, MAX_CHUNK_BYTES, chunkFileName, type SnapshotManifest } from '../../src/store/index.js';
import {
  MAX_SNAPSHOT_MESSAGE_BYTES,
  PeerChunkSource,
  SNAPSHOTS_PROTOCOL,
  SyncMessageError,
  parseSnapshotBytes,
  parseSnapshotList,
  parseSnapshotManifest,
  parseSnapshotRequest,
  serveSnapshots,
  snapshotHash,
} from '../../src/sync/index.js';

const PACKET_LIMIT = 4096;
const HEIGHT = 40;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A snapshot directory under a fresh data/snapshots/: chunk 0 is a full 10 MB chunk, the rest small. */
function writeSnapshot(t: { teardown: (f: () => unknown) => void }, chunks: Buffer[], damage: (index: number, bytes: Buffer) => Buffer = (_i, b) => b): { root: string; manifest: SnapshotManifest } {
  const root = join(mkdtempSync(join(tmpdir(), 'strata-snapshots-')), 'snapshots');
  t.teardown(() => rmSync(join(root, '..'), { recursive: true, force: true }));
  const dir = join(root, String(HEIGHT));
  mkdirSync(dir, { recursive: true });
  const manifest: SnapshotManifest = {
    format: 1,
    height: HEIGHT,
    appHash: 'ab'.repeat(32),
    items: 1234,
    chunks: chunks.map((c) => ({ sha256: sha256(c), bytes: c.length })),
    extras: [],
  };
  chunks.forEach((c, i) => writeFileSync(join(dir, chunkFileName(i)), damage(i, c)));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { root, manifest };
}

async function host(t: { teardown: (f: () => unknown) => void }, peers: PeerHost[] = []) {
  const key = nodeKey();
  const { logger, records } = memoryLogger('debug');
  const h = await PeerHost.start({
    seed: key.seed,
    listen: { host: '127.0.0.1', port: 0 },
    persistentPeers: peers.map((p) => ({ nodeId: p.nodeId, host: '127.0.0.1', port: p.port })),
    maxMessageBytes: PACKET_LIMIT,
    redialMinMs: 50,
    redialMaxMs: 200,
    logger,
  });
  t.teardown(() => h.stop());
  return { host: h, logger, records };
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('peers offer, and a downloader verifies, snapshot chunks', async (t) => {
  const chunks = [randomBytes(MAX_CHUNK_BYTES), ...Array.from({ length: 5 }, () => randomBytes(1500))];
  const intact = writeSnapshot(t, chunks);
  // Both kinds of damage on both parities of index, so whichever chunks go to this peer first include a bad one.
  const damaged = writeSnapshot(t, chunks, (i, b) => {
    if (i === 1 || i === 4) return b.subarray(0, b.length - 7);
    if (i === 2 || i === 3) {
      const copy = Buffer.from(b);
      copy[10] = copy[10]! ^ 0xff;
      return copy;
    }
    return b;
  });
  const good = await host(t);
  const bad = await host(t);
  await serveSnapshots(good.host, intact.root, good.logger);
  await serveSnapshots(bad.host, damaged.root, bad.logger);
  const client = await host(t, [good.host, bad.host]);
  await waitFor('both peers connected', () => client.host.peers().length === 2);
  const goodPeer = client.host.peers().find((p) => p.nodeId === good.host.nodeId)!;
  const badPeer = client.host.peers().find((p) => p.nodeId === bad.host.nodeId)!;
  const ask = (peer: typeof goodPeer, request: unknown) =>
    client.host.request(peer, SNAPSHOTS_PROTOCOL, request, { timeoutMs: 30_000, expectReply: true, maxMessageBytes: MAX_SNAPSHOT_MESSAGE_BYTES });

  const expectedHash = snapshotHash(intact.manifest);
  for (const peer of [goodPeer, badPeer]) {
    const list = parseSnapshotList(await ask(peer, { type: 'list' }));
    t.same(list.snapshots, [{ height: HEIGHT, format: 1, chunks: chunks.length, hash: expectedHash }], 'both peers offer the same snapshot under one hash');
  }
  const manifest = parseSnapshotManifest(parseSnapshotBytes(await ask(goodPeer, { type: 'manifest', height: HEIGHT }))!, goodPeer.nodeId);
  t.same(manifest, intact.manifest, 'the manifest arrives whole');
  t.equal(snapshotHash(manifest), expectedHash);
  const big = parseSnapshotBytes(await ask(goodPeer, { type: 'chunk', height: HEIGHT, index: 0 }))!;
  t.equal(big.length, MAX_CHUNK_BYTES, `a ${MAX_CHUNK_BYTES}-byte chunk crosses although max-packet-msg-payload-size is ${PACKET_LIMIT}`);
  t.same(parseSnapshotBytes(await ask(goodPeer, { type: 'chunk', height: HEIGHT + 1, index: 0 })), undefined, 'a snapshot the peer does not have is answered missing');
  t.same(parseSnapshotBytes(await ask(goodPeer, { type: 'chunk', height: HEIGHT, index: chunks.length })), undefined, 'so is a chunk past the last');
  await t.rejects(
    client.host.request(goodPeer, SNAPSHOTS_PROTOCOL, { type: 'chunk', height: HEIGHT, index: 0 }, { timeoutMs: 30_000, expectReply: true }),
    'with the packet bound a chunk reply is refused: the snapshot protocol needs its own',
  );
  await waitFor('the client reconnects', () => client.host.peers().length === 2, 30_000);

  t.test('a downloader takes every chunk intact, rejecting the damaged ones', async (t) => {
    const rejected: Array<{ index: number; peer: string; reason: string }> = [];
    const source = new PeerChunkSource(client.host, manifest, new Set([good.host.nodeId, bad.host.nodeId]), client.logger, {
      window: 8,
      onRejected: (index, peer, reason) => rejected.push({ index, peer, reason }),
    });
    for (let i = 0; i < chunks.length; i++) t.ok(Buffer.from(await source.chunk(i)).equals(chunks[i]!), `chunk ${i} is the original`);
    t.ok(rejected.length >= 2, `${rejected.length} damaged chunks rejected`);
    t.ok(rejected.every((r) => r.peer === bad.host.nodeId), 'all from the damaging peer');
    t.ok(rejected.some((r) => /truncated/.test(r.reason)), 'a truncated chunk is rejected by its size');
    t.ok(rejected.some((r) => /corrupt/.test(r.reason)), 'a corrupt chunk is rejected by its sha256');
    t.ok(client.records.some((r) => r.msg.includes('rejected a snapshot chunk from a peer')), 'and each rejection is logged');
  });

  t.test('a chunk no peer serves intact fails the download', async (t) => {
    const source = new PeerChunkSource(client.host, manifest, new Set([bad.host.nodeId]), client.logger, { rounds: 2 });
    await t.rejects(source.chunk(2), ChunkVerificationError, 'ChunkVerificationError after every round');
    const fine = await source.chunk(5);
    t.ok(Buffer.from(fine).equals(chunks[5]!), 'an intact chunk from the same peer is still taken');
  });
});

t.test('snapshot messages are checked before they are trusted', async (t) => {
  t.same(parseSnapshotRequest({ type: 'chunk', height: 3, index: 0 }), { type: 'chunk', height: 3, index: 0 });
  for (const bad of [{ type: 'chunk', height: 3, index: -1 }, { type: 'chunk', height: 0, index: 0 }, { type: 'drop-tables' }, [], { type: 'extra', height: 3, name: '../config/node_key.json' }]) {
    t.throws(() => parseSnapshotRequest(bad), SyncMessageError, `refused: ${JSON.stringify(bad)}`);
  }
  t.throws(() => parseSnapshotList({ snapshots: [{ height: 1, format: 1, chunks: 1, hash: 'xyz' }] }), SyncMessageError);
  t.throws(() => parseSnapshotList({ snapshots: Array.from({ length: 65 }, () => ({ height: 1, format: 1, chunks: 1, hash: 'a'.repeat(64) })) }), SyncMessageError);
  t.throws(() => parseSnapshotManifest(Buffer.from('{"format":1}'), 'p'), SyncMessageError, 'an unusable manifest is refused');
  const manifest: SnapshotManifest = { format: 1, height: 9, appHash: 'cd'.repeat(32), items: 2, chunks: [{ sha256: 'ef'.repeat(32), bytes: 10 }], extras: [] };
  t.equal(snapshotHash(manifest), snapshotHash({ ...manifest, extras: [{ name: 'block.bin', sha256: '00'.repeat(32), bytes: 1 }] }), 'the hash is of the state, not of the attached block');
  t.not(snapshotHash(manifest), snapshotHash({ ...manifest, chunks: [{ sha256: 'ee'.repeat(32), bytes: 10 }] }), 'another chunk, another hash');
  t.ok(MAX_SNAPSHOT_MESSAGE_BYTES > MAX_CHUNK_BYTES, 'the bound holds a full chunk');
});
