/**
 * Snapshots through the store layer, on real RocksDB: a snapshot written from a committed SC
 * is restored into empty homes — split off and on, both ss-backends — with the same app hash
 * and the same SS contents as the source's SS at that height (EVM keys only in the EVM SS
 * with the split); a corrupt or truncated chunk is a typed error naming the chunk, a wrong app
 * hash discards the import, a legacy `evm_flatkv` stream restores like a current one, and the
 * writer keeps the newest snapshots and survives `data/snapshots/` being deleted.
 */
import t, { type Test } from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, appendFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../src/log/logger.js';
import {
  AppHashMismatchError,
  ChunkVerificationError,
  CommitStore,
  CompositeStateStore,
  DEFAULT_STATE_STORE_CONFIG,
  DirectoryChunkSource,
  RestoreTargetError,
  chunkFileName,
  evmStoreDir,
  listSnapshots,
  readManifest,
  readStreamItems,
  restoreMarkerPath,
  restoreSnapshot,
  snapshotsDir,
  writeSnapshot,
  type Backend,
  type NamedChangeset,
  type StateStoreConfig,
} from '../../src/store/index.js';
import { scBlock } from '../sc/fixtures/sc-workload.js';

const logger = new Logger({ level: 'error' });

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-snap-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

/** Commits blocks 1..n to an SC and a plain SS under `dataDir`; returns every changeset applied. */
async function buildSource(dataDir: string, n: number): Promise<NamedChangeset[][]> {
  const sc = await CommitStore.open(dataDir, { snapshotInterval: 0 });
  const ss = await CompositeStateStore.open(dataDir, { ...DEFAULT_STATE_STORE_CONFIG }, logger);
  const blocks: NamedChangeset[][] = [];
  for (let v = 1; v <= n; v++) {
    const changes = scBlock(v);
    sc.applyChangesets(changes);
    await sc.commit();
    await ss.applyChangesets(v, changes);
    blocks.push(changes);
  }
  await ss.close();
  await sc.close();
  return blocks;
}

/** Every (store, key) the blocks wrote. */
function writtenKeys(blocks: NamedChangeset[][]): Array<{ store: string; key: Buffer }> {
  const seen = new Map<string, { store: string; key: Buffer }>();
  for (const block of blocks) for (const cs of block) for (const p of cs.pairs) seen.set(`${cs.name}/${hex(p.key)}`, { store: cs.name, key: Buffer.from(p.key) });
  return [...seen.values()];
}

function config(backend: Backend, split: boolean): StateStoreConfig {
  return { ...DEFAULT_STATE_STORE_CONFIG, backend, evmSsSplit: split };
}

const HEIGHT = 12;

t.test('snapshots restore into empty homes, split off and on, on both backends', async (t) => {
  const dir = tempDir(t);
  const source = join(dir, 'source');
  const blocks = await buildSource(source, HEIGHT);
  const sc = await CommitStore.open(source, { snapshotInterval: 0 });
  const appHash = hex(sc.lastCommitInfo().appHash)!;
  const snap = await writeSnapshot(sc, snapshotsDir(source), { chunkBytes: 64 * 1024 });
  await sc.close();
  t.equal(snap.manifest.height, HEIGHT);
  t.equal(snap.manifest.appHash, appHash);
  t.ok(snap.manifest.chunks.length > 3, 'a small chunk size cuts the stream into several chunks');
  t.ok(snap.manifest.chunks.every((c) => c.bytes <= 64 * 1024));
  t.same(readManifest(snap.dir), snap.manifest, 'the manifest on disk is the one returned');

  const reference = await CompositeStateStore.open(source, { ...DEFAULT_STATE_STORE_CONFIG }, logger);
  t.teardown(() => reference.close());
  const keys = writtenKeys(blocks);

  for (const backend of ['pebbledb', 'rocksdb'] as const) {
    for (const split of [false, true]) {
      const target = join(dir, `${backend}-${split ? 'split' : 'plain'}`);
      const result = await restoreSnapshot({
        dataDir: target,
        manifest: snap.manifest,
        source: new DirectoryChunkSource(snap.dir),
        commit: { snapshotInterval: 0 },
        ss: config(backend, split),
        trustedAppHash: Buffer.from(appHash, 'hex'),
      });
      t.equal(result.appHash, appHash, `${backend} split=${split}: the restored SC has the snapshot's app hash`);
      t.notOk(existsSync(restoreMarkerPath(target)), 'the in-progress mark is gone');
      const restored = await CompositeStateStore.open(target, config(backend, split), logger);
      t.equal(Number(restored.latestVersion()), HEIGHT, 'latest = snapshot height');
      t.equal(Number(restored.earliestVersion()), HEIGHT, 'earliest = snapshot height');
      if (split) {
        t.equal(Number(restored.evm!.earliestVersion()), HEIGHT);
        t.equal(Number(restored.cosmos.earliestVersion()), HEIGHT);
      }
      let differing = 0;
      for (const { store, key } of keys) {
        if (hex(restored.get(store, HEIGHT, key)) !== hex(reference.get(store, HEIGHT, key))) differing++;
      }
      t.equal(differing, 0, `every one of ${keys.length} keys reads as in the source's SS`);
      if (split) {
        const evmKey = keys.find((k) => k.store === 'evm')!;
        t.equal(restored.cosmos.get('evm', HEIGHT, evmKey.key), undefined, 'no evm key in the Cosmos SS');
        t.ok(readdirSync(evmStoreDir(target)).length > 0, 'data/evm_ss/ holds the EVM SS');
      }
      await restored.close();
      const copy = await CommitStore.open(target, { snapshotInterval: 0 });
      t.equal(copy.version(), HEIGHT);
      await copy.close();
    }
  }

  const again = restoreSnapshot({
    dataDir: join(dir, 'pebbledb-plain'),
    manifest: snap.manifest,
    source: new DirectoryChunkSource(snap.dir),
    commit: { snapshotInterval: 0 },
    ss: config('pebbledb', false),
  });
  await t.rejects(again, RestoreTargetError, 'a home that holds state is not restored into');
});

t.test('a corrupt or truncated chunk is refused naming it; a wrong app hash discards the import', async (t) => {
  const dir = tempDir(t);
  const source = join(dir, 'source');
  await buildSource(source, 4);
  const sc = await CommitStore.open(source, { snapshotInterval: 0 });
  const snap = await writeSnapshot(sc, snapshotsDir(source), { chunkBytes: 64 * 1024 });
  await sc.close();
  const restore = (target: string, manifest = snap.manifest, trusted?: Buffer) =>
    restoreSnapshot({ dataDir: join(dir, target), manifest, source: new DirectoryChunkSource(snap.dir), commit: { snapshotInterval: 0 }, ss: config('pebbledb', true), ...(trusted ? { trustedAppHash: trusted } : {}) });

  const chunk2 = join(snap.dir, chunkFileName(2));
  const original = readFileSync(chunk2);
  const flipped = Buffer.from(original);
  flipped[100] = flipped[100]! ^ 0xff;
  writeFileSync(chunk2, flipped);
  const corrupt = await restore('corrupt').then(() => undefined, (e: unknown) => e);
  t.type(corrupt, ChunkVerificationError);
  t.equal((corrupt as ChunkVerificationError).index, 2, 'the error names the chunk to fetch again');
  t.match((corrupt as Error).message, /snapshot chunk 2 of height 4 .* hashes to [0-9a-f]{64}, not [0-9a-f]{64} .*corrupt.*fetch it again/);

  truncateSync(chunk2, original.length - 10);
  await t.rejects(restore('corrupt'), { name: 'ChunkVerificationError', index: 2, message: /holds \d+ bytes, not the \d+ its manifest lists \(truncated or padded\)/ });
  writeFileSync(chunk2, original);
  appendFileSync(chunk2, Buffer.from('extra'));
  await t.rejects(restore('corrupt'), ChunkVerificationError, 'a padded chunk is refused too');
  writeFileSync(chunk2, original);

  await t.rejects(restore('untrusted', snap.manifest, Buffer.alloc(32, 7)), AppHashMismatchError, 'a trusted hash the manifest does not match is refused');
  const lying = { ...snap.manifest, appHash: 'ab'.repeat(32) };
  await t.rejects(restore('lying', lying), { name: 'AppHashMismatchError', message: /has app hash [0-9a-f]{64} at height 4, not (ab){32}.*discarded/ });
  t.same(readdirSync(join(dir, 'lying')), [], 'the discarded import left nothing behind');
  const ok = await restore('corrupt');
  t.equal(ok.appHash, snap.manifest.appHash, 'the repaired chunk restores (an earlier partial import is discarded first)');
});

/** The stream of `dataDir`'s SC with the store header `from` renamed to `to`. */
async function renameSection(stream: string, from: string, to: string, out: string): Promise<void> {
  const parts: Buffer[] = [];
  const uv = (n: number): Buffer => {
    const b: number[] = [];
    while (n >= 0x80) {
      b.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    b.push(n);
    return Buffer.from(b);
  };
  const field = (tag: number, bytes: Buffer): Buffer => (bytes.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.of(tag), uv(bytes.length), bytes]));
  const num = (tag: number, n: number): Buffer => (n === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.of(tag), uv(n)]));
  for await (const item of readStreamItems(stream)) {
    const inner =
      item.kind === 'store'
        ? field(0x0a, field(0x0a, Buffer.from(item.name === from ? to : item.name)))
        : field(0x12, Buffer.concat([field(0x0a, item.key), field(0x12, item.value), num(0x18, item.version), num(0x20, item.height)]));
    parts.push(uv(inner.length), inner);
  }
  writeFileSync(out, Buffer.concat(parts));
}

t.test('a legacy stream whose evm section is named evm_flatkv restores like a current one', async (t) => {
  const dir = tempDir(t);
  // The current node's snapshot, the reference.
  const current = join(dir, 'current');
  const blocks = await buildSource(current, 5);
  const sc = await CommitStore.open(current, { snapshotInterval: 0 });
  const expected = hex(sc.lastCommitInfo().appHash)!;
  await sc.close();
  // An older node kept evm in memiavl and named its section evm_flatkv.
  const legacyHome = join(dir, 'legacy');
  const legacy = await CommitStore.open(legacyHome, { snapshotInterval: 0, flatkv: false });
  for (const block of blocks) {
    legacy.applyChangesets(block);
    await legacy.commit();
  }
  await legacy.exportSnapshot(join(dir, 'plain.stream'));
  await legacy.close();
  await renameSection(join(dir, 'plain.stream'), 'evm', 'evm_flatkv', join(dir, 'legacy.stream'));
  const sections: string[] = [];
  for await (const item of readStreamItems(join(dir, 'legacy.stream'))) if (item.kind === 'store') sections.push(item.name);
  t.ok(sections.includes('evm_flatkv') && !sections.includes('evm') && !sections.includes('flatkv'), `the stream uses the legacy name (${sections.join(', ')})`);

  // Packed as a snapshot directory by hand, as an old node's would be.
  const snapDir = join(dir, 'snap');
  const bytes = readFileSync(join(dir, 'legacy.stream'));
  const { createHash } = await import('node:crypto');
  rmSync(snapDir, { recursive: true, force: true });
  (await import('node:fs')).mkdirSync(snapDir);
  writeFileSync(join(snapDir, chunkFileName(0)), bytes);
  // FlatKV rebuilt from logical keys stamps every row with the snapshot height, so the lattice
  // (and the app hash) is the one a direct SC import of the stream yields, not the source's.
  await CommitStore.importSnapshot(join(dir, 'direct'), 5, join(dir, 'legacy.stream'), { snapshotInterval: 0 });
  const direct = await CommitStore.open(join(dir, 'direct'), { snapshotInterval: 0 });
  const legacyHash = hex(direct.lastCommitInfo().appHash)!;
  t.same(direct.lastCommitInfo().storeInfos.map((i) => i.name), ['acc', 'bank', 'evm_lattice'], 'evm went into FlatKV');
  await direct.close();
  t.not(legacyHash, expected);
  const manifest = { format: 1, height: 5, appHash: legacyHash, items: sections.length, chunks: [{ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }], extras: [] };
  writeFileSync(join(snapDir, 'manifest.json'), JSON.stringify(manifest));
  const source = new DirectoryChunkSource(snapDir);
  const target = join(dir, 'target');
  const result = await restoreSnapshot({ dataDir: target, manifest: source.manifest(), source, commit: { snapshotInterval: 0 }, ss: config('pebbledb', true) });
  t.equal(result.appHash, legacyHash, 'the SC is the one the stream describes');
  const ss = await CompositeStateStore.open(target, config('pebbledb', true), logger);
  const reference = await CompositeStateStore.open(current, { ...DEFAULT_STATE_STORE_CONFIG }, logger);
  let differing = 0;
  let evmKeys = 0;
  for (const { store, key } of writtenKeys(blocks)) {
    if (store === 'evm') evmKeys++;
    if (hex(ss.get(store, 5, key)) !== hex(reference.get(store, 5, key))) differing++;
    if (store === 'evm') t.equal(ss.cosmos.get('evm_flatkv', 5, key), undefined);
  }
  t.ok(evmKeys > 0);
  t.equal(differing, 0, 'evm_flatkv keys are served as evm keys from the EVM SS');
  await ss.close();
  await reference.close();
});

t.test('the writer keeps the newest snapshots, cleans up, and survives data/snapshots/ being deleted', async (t) => {
  const dir = tempDir(t);
  const sc = await CommitStore.open(dir, { snapshotInterval: 0 });
  const root = snapshotsDir(dir);
  for (let v = 1; v <= 4; v++) {
    sc.applyChangesets(scBlock(v));
    await sc.commit();
    await writeSnapshot(sc, root, { keepRecent: 2, extras: [{ name: 'block.bin', bytes: Buffer.from(`block ${v}`) }] });
  }
  t.same(listSnapshots(root).map((s) => s.manifest.height), [4, 3], 'two kept, newest first');
  t.same(readdirSync(root).sort(), ['3', '4'], 'nothing else is left behind');
  t.equal(listSnapshots(root)[0]!.manifest.extras[0]!.name, 'block.bin');
  rmSync(root, { recursive: true, force: true });
  sc.applyChangesets(scBlock(5));
  await sc.commit();
  const five = await writeSnapshot(sc, root, { keepRecent: 2 });
  t.equal(five.manifest.height, 5, 'a deleted snapshots directory is created again');
  await t.rejects(writeSnapshot(sc, root, { chunkBytes: 10 }), { name: 'SnapshotWriteError', message: /chunk size 10 is outside/ });
  await sc.close();
});
