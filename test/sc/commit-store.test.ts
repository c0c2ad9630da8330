/**
 * The state-commitment layer through its TypeScript face: commits and the app hash (checked
 * against an independent computation of the Cosmos commit-info Merkle root), routing of the
 * `evm` store to FlatKV, reads and iteration, reopen, rollback, snapshot corruption, bad input,
 * and `stratadb dump-iavl` run as a real process (including its refusal while a node holds
 * the directory).
 */
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CommitStore,
  CorruptionError,
  InvalidArgumentError,
  NotSupportedError,
  StoreClosedError,
  StoreIoError,
  memiavlDir,
  repairSnapshots,
  type CommitInfo,
} from '../../src/store/index.js';
import { GENESIS_ACCOUNTS, bankKey, nonceKey, scBlock } from './fixtures/sc-workload.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STRATADB = join(ROOT, 'src', 'cli', 'stratadb.ts');

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-sc-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

function uvarint(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** The Cosmos SDK's CommitInfo.Hash(): RFC-6962 root over name-sorted (name, sha256(hash)) leaves. */
function referenceAppHash(infos: CommitInfo['storeInfos']): Buffer {
  const leaves = [...infos]
    .sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))
    .map((i) => {
      const name = Buffer.from(i.name);
      return Buffer.concat([uvarint(name.length), name, uvarint(32), sha256(i.hash)]);
    });
  const root = (items: Buffer[]): Buffer => {
    if (items.length === 1) return sha256(Buffer.of(0), items[0]!);
    let split = 1;
    while (split * 2 < items.length) split *= 2;
    return sha256(Buffer.of(1), root(items.slice(0, split)), root(items.slice(split)));
  };
  return root(leaves);
}

async function commitBlocks(store: CommitStore, from: number, to: number): Promise<CommitInfo[]> {
  const infos: CommitInfo[] = [];
  for (let v = from; v <= to; v++) {
    store.applyChangesets(scBlock(v));
    infos.push(await store.commit());
  }
  return infos;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

t.test('commits produce the commit-info app hash with evm_lattice, and reopen keeps them', async (t) => {
  const dir = tempDir(t);
  const store = await CommitStore.open(dir, { snapshotInterval: 0 });
  t.equal(store.version(), 0);
  store.applyChangesets(scBlock(1));
  const working = await store.working();
  const first = await store.commit();
  t.equal(first.version, 1);
  t.equal(hex(working.appHash), hex(first.appHash), 'the working hash predicts the commit');
  t.same(first.storeInfos.map((i) => i.name), ['acc', 'bank', 'evm_lattice'], 'evm is in FlatKV, not in memiavl');
  const infos = await commitBlocks(store, 2, 8);
  for (const info of [first, ...infos]) {
    t.equal(hex(info.appHash), hex(referenceAppHash(info.storeInfos)), `app hash of version ${info.version}`);
    t.ok(info.storeInfos.every((i) => i.hash.length === 32));
  }
  t.not(hex(infos[0]!.appHash), hex(infos[1]!.appHash), 'each block changes the app hash');
  t.equal(store.get('bank', bankKey(5))?.length, 8);
  t.equal(store.get('bank', Buffer.from('nope')), undefined);
  t.equal(store.get('missing-store', Buffer.from('k')), undefined);
  await store.close();
  t.throws(() => store.version(), StoreClosedError);

  const reopened = await CommitStore.open(dir, { snapshotInterval: 0 });
  t.equal(reopened.version(), 8);
  t.equal(hex(reopened.lastCommitInfo().appHash), hex(infos.at(-1)!.appHash));
  await reopened.close();
});

t.test('evm reads come from FlatKV; FlatKV refuses iteration; without FlatKV evm is a memiavl tree', async (t) => {
  const dir = tempDir(t);
  const store = await CommitStore.open(dir, { snapshotInterval: 0 });
  await commitBlocks(store, 1, 3);
  const evmWrites = scBlock(3).find((c) => c.name === 'evm')!.pairs;
  const nonce = evmWrites.find((p) => p.key[0] === 0x0a)!;
  t.equal(hex(store.get('evm', nonce.key)!), hex(nonce.value!));
  t.throws(() => [...store.iterate('evm')], NotSupportedError);
  await store.close();

  const plain = await CommitStore.open(tempDir(t), { snapshotInterval: 0, flatkv: false });
  const infos = await commitBlocks(plain, 1, 3);
  t.same(infos[2]!.storeInfos.map((i) => i.name), ['acc', 'bank', 'evm']);
  t.equal(hex(infos[2]!.appHash), hex(referenceAppHash(infos[2]!.storeInfos)));
  t.equal(hex(plain.get('evm', nonce.key)!), hex(nonce.value!));
  await plain.close();
});

t.test('getMany answers as get does per key: committed, staged, absent, in FlatKV and memiavl', async (t) => {
  for (const flatkv of [true, false]) {
    const store = await CommitStore.open(tempDir(t), { snapshotInterval: 0, flatkv });
    await commitBlocks(store, 1, 2);
    // Staged, not committed: a new account's nonce and code hash, a bank balance, a deletion.
    const fresh = Buffer.alloc(20, 0x5a);
    const codeHash = sha256(Buffer.from('code'));
    store.applyChangesets([
      { name: 'bank', pairs: [{ key: bankKey(7), value: Buffer.from('staged') }, { key: bankKey(8), value: null }] },
      { name: 'evm', pairs: [{ key: Buffer.concat([Buffer.of(0x0a), fresh]), value: Buffer.alloc(8, 1) }, { key: Buffer.concat([Buffer.of(0x08), fresh]), value: codeHash }] },
    ]);
    const evmKeys = [nonceKey(1), nonceKey(3), nonceKey(GENESIS_ACCOUNTS + 5), Buffer.concat([Buffer.of(0x0a), fresh]), Buffer.concat([Buffer.of(0x08), fresh]), Buffer.concat([Buffer.of(0x08), bankKey(1).subarray(8)])];
    const bankKeys = [bankKey(0), bankKey(7), bankKey(8), bankKey(GENESIS_ACCOUNTS + 1), bankKey(0)];
    for (const [name, keys] of [['evm', evmKeys], ['bank', bankKeys]] as const) {
      const many = store.getMany(name, keys);
      t.equal(many.length, keys.length, `${name}: one answer per key (flatkv ${flatkv})`);
      t.same(many.map((v) => (v === undefined ? null : hex(v))), keys.map((k) => { const v = store.get(name, k); return v === undefined ? null : hex(v); }), `${name}: getMany equals get for each key (flatkv ${flatkv})`);
      t.ok(many.some((v) => v === undefined) && many.some((v) => v !== undefined), `${name}: the keys include present and absent ones`);
      const packed = store.getManyPacked(name, Buffer.concat(keys), Int32Array.from(keys, (k) => k.length));
      t.same(packed.map((v) => (v === undefined ? null : hex(v))), many.map((v) => (v === undefined ? null : hex(v))), `${name}: getManyPacked equals getMany (flatkv ${flatkv})`);
    }
    t.throws(() => store.getManyPacked('bank', Buffer.concat(bankKeys), new Int32Array([bankKeys[0]!.length])), InvalidArgumentError, 'key lengths that do not cover the packed keys are refused');
    t.throws(() => store.getManyPacked('bank', bankKeys[0]!, [bankKeys[0]!.length] as unknown as Int32Array), InvalidArgumentError, 'lengths must be an Int32Array');
    t.same(store.getMany('nosuchstore', [bankKey(0)]), [undefined], 'a store that does not exist has no values');
    t.same(store.getMany('bank', []), [], 'no keys, no values');
    t.throws(() => store.getMany('bank', 'key' as unknown as Uint8Array[]), InvalidArgumentError);
    t.throws(() => store.getMany('bank', [42 as unknown as Uint8Array]), InvalidArgumentError);
    await store.close();
    t.throws(() => store.getMany('bank', [bankKey(0)]), StoreClosedError);
  }
});

t.test('iteration walks a store in order, both ways, across pages', async (t) => {
  const store = await CommitStore.open(tempDir(t), { snapshotInterval: 0 });
  await commitBlocks(store, 1, 1);
  const keys = [...store.iterate('bank')].map(([k]) => hex(k));
  t.equal(keys.length, GENESIS_ACCOUNTS);
  t.same(keys, [...keys].sort(), 'ascending');
  const reversed = [...store.iterate('bank', { reverse: true })].map(([k]) => hex(k));
  t.same(reversed, [...keys].reverse(), 'descending');
  const window = [...store.iterate('bank', { start: bankKey(10), end: bankKey(20) })];
  t.equal(window.length, 10);
  await store.close();
});

t.test('rollback returns to an earlier app hash, on disk too, and history continues from there', async (t) => {
  const dir = tempDir(t);
  const store = await CommitStore.open(dir, { snapshotInterval: 4, keepRecent: 1, asyncSnapshot: false });
  const infos = await commitBlocks(store, 1, 14);
  t.same(store.snapshotVersions(), [8, 12]);
  const back = await store.rollback(10);
  t.equal(back.version, 10);
  t.equal(hex(back.appHash), hex(infos[9]!.appHash));
  t.same(store.snapshotVersions(), [8]);
  await t.rejects(store.rollback(11), InvalidArgumentError, 'cannot roll forward');
  const again = await commitBlocks(store, 11, 12);
  t.equal(hex(again[1]!.appHash), hex(infos[11]!.appHash), 'same blocks, same hashes');
  await store.close();
  const reopened = await CommitStore.open(dir, { snapshotInterval: 4 });
  t.equal(reopened.version(), 12);
  t.equal(hex(reopened.lastCommitInfo().appHash), hex(infos[11]!.appHash));
  await reopened.close();
});

// A node killed after committing its first block to the SC, before anything else recorded it,
// goes back to the empty state and commits that block again; with more history the SC cannot
// go back to empty, and the refusal changes neither store.
t.test('rollback to 0 empties a store holding only its first version; with more history it is refused untouched', async (t) => {
  const dir = tempDir(t);
  const first = scBlock(1).map((cs) => (cs.name === 'evm' ? { name: 'evm', pairs: [{ key: nonceKey(1), value: Buffer.alloc(8, 1) }] } : cs));
  let store = await CommitStore.open(dir, { initialVersion: 1 });
  store.applyChangesets(first);
  const committed = await store.commit();
  await store.close();
  store = await CommitStore.open(dir, { initialVersion: 1 });
  const empty = await store.rollback(0);
  t.equal(empty.version, 0);
  t.equal(store.version(), 0);
  t.equal(store.get('evm', nonceKey(1)), undefined, 'FlatKV is empty too');
  await store.close();
  store = await CommitStore.open(dir, { initialVersion: 1 });
  t.equal(store.version(), 0, 'empty on disk');
  store.applyChangesets(first);
  const again = await store.commit();
  t.equal(again.version, 1);
  t.equal(hex(again.appHash), hex(committed.appHash), 'the first block commits to the same app hash again');
  const second = await commitBlocks(store, 2, 2);
  await t.rejects(store.rollback(0), InvalidArgumentError, 'no rollback to empty past the first version');
  t.equal(store.version(), 2);
  await store.close();
  store = await CommitStore.open(dir, { initialVersion: 1 });
  t.equal(store.version(), 2, 'the refusal left both stores at version 2');
  t.equal(hex(store.lastCommitInfo().appHash), hex(second[0]!.appHash));
  t.same(store.get('evm', nonceKey(1)), Buffer.alloc(8, 1));
  await store.close();
});

t.test('a corrupted snapshot is reported with the remedy, not loaded, and the remedy works', async (t) => {
  const dir = tempDir(t);
  const store = await CommitStore.open(dir, { snapshotInterval: 2, asyncSnapshot: false });
  await commitBlocks(store, 1, 3);
  const before = store.lastCommitInfo();
  await t.rejects(repairSnapshots(memiavlDir(dir)), StoreIoError, 'refused while the store is open');
  await store.close();
  const kvs = join(memiavlDir(dir), 'snapshot-00000000000000000002', 'bank', 'kvs');
  const bytes = readFileSync(kvs);
  bytes[100] = bytes[100]! ^ 0x01;
  writeFileSync(kvs, bytes);
  const error = await CommitStore.open(dir, { snapshotInterval: 2 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, CorruptionError);
  t.match((error as Error).message, /bank\/kvs fails its checksum; stop the node and run `stratadb repair-snapshots -d [^`]*committer\.db`/);

  // The only snapshot goes; the changelog still starts at version 1.
  const repair = await repairSnapshots(memiavlDir(dir));
  t.same(repair.removed.map((r) => r.version), [2]);
  t.equal(repair.current, null);
  t.equal(repair.version, 3);
  const reopened = await CommitStore.open(dir, { snapshotInterval: 2 });
  t.same(reopened.lastCommitInfo(), before);
  await reopened.close();
});

t.test('bad input gets typed errors and the store keeps working', async (t) => {
  const store = await CommitStore.open(tempDir(t), { snapshotInterval: 0 });
  t.throws(() => store.applyChangesets([{ name: 'bank', pairs: [{ key: 'x' as unknown as Uint8Array, value: null }] }]), InvalidArgumentError);
  t.throws(() => store.applyChangesets([{ name: 'a/b', pairs: [] }]), InvalidArgumentError);
  t.throws(() => store.applyChangesets([{ name: 'evm', pairs: [{ key: nonceKey(1), value: Buffer.from('short') }] }]), InvalidArgumentError, 'a nonce is 8 bytes');
  t.throws(() => store.applyChangesets([{ name: 'bank', pairs: [{ key: Buffer.alloc(0), value: Buffer.from('v') }] }]), InvalidArgumentError);
  await t.rejects(CommitStore.open(tempDir(t), { hashThreads: 0 }), InvalidArgumentError);
  await t.rejects(store.rollback(-1), InvalidArgumentError);
  store.applyChangesets(scBlock(1));
  t.equal((await store.commit()).version, 1, 'still commits');
  await store.close();
});

function stratadb(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', STRATADB, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('stratadb dump-iavl writes one file per module and refuses while the directory is held', async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'dump');
  const store = await CommitStore.open(dir, { snapshotInterval: 3, asyncSnapshot: false });
  const infos = await commitBlocks(store, 1, 5);

  const refused = stratadb(['dump-iavl', '-d', memiavlDir(dir), '-o', out]);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /resource temporarily unavailable/);
  await store.close();

  const all = stratadb(['dump-iavl', '-d', memiavlDir(dir), '-o', out]);
  t.equal(all.status, 0, all.stderr);
  // The memiavl stores, and FlatKV's rows headed by the evm_lattice hash (no EVM rows here).
  t.same(readdirSync(out).sort(), ['acc', 'bank', 'evm_lattice']);
  t.match(readFileSync(join(out, 'evm_lattice'), 'utf8').split('\n')[0], /^Tree evm_lattice has version 5 and root hash: [0-9A-F]*$/);
  const bank = readFileSync(join(out, 'bank'), 'utf8').split('\n');
  const bankHash = Buffer.from(infos[4]!.storeInfos.find((i) => i.name === 'bank')!.hash).toString('hex').toUpperCase();
  t.equal(bank[0], `Tree bank has version 5 and root hash: ${bankHash}`);
  t.match(bank[1], /^Key: [0-9A-F]+, Value: [0-9A-F]+$/);
  t.equal(bank.filter((l) => l.startsWith('Key: ')).length, GENESIS_ACCOUNTS + 0, 'one line per leaf');

  const old = stratadb(['dump-iavl', '-d', memiavlDir(dir), '-o', join(dir, 'old'), '--height', '2', '-m', 'acc']);
  t.equal(old.status, 0, old.stderr);
  const accHash = Buffer.from(infos[1]!.storeInfos.find((i) => i.name === 'acc')!.hash).toString('hex').toUpperCase();
  t.equal(readFileSync(join(dir, 'old', 'acc'), 'utf8').split('\n')[0], `Tree acc has version 2 and root hash: ${accHash}`);

  const missing = stratadb(['dump-iavl', '-d', memiavlDir(dir), '-o', join(dir, 'x'), '-m', 'wasm']);
  t.equal(missing.status, 1);
  t.match(missing.stdout, /Tree does not exist for module wasm/);
  const badHeight = stratadb(['dump-iavl', '-d', memiavlDir(dir), '-o', join(dir, 'x'), '--height', '99']);
  t.equal(badHeight.status, 1);
  t.match(badHeight.stderr, /cannot be opened at version 99/);
});

t.test('state-sync export and import rebuild the same app hash; legacy evm sections land in FlatKV', async (t) => {
  const dir = tempDir(t);
  const source = await CommitStore.open(join(dir, 'src'), { snapshotInterval: 0 });
  const infos = await commitBlocks(source, 1, 6);
  const stream = join(dir, 'state.snapshot');
  const exported = await source.exportSnapshot(stream);
  t.equal(exported.version, 6);
  t.ok(exported.items > GENESIS_ACCOUNTS, 'every leaf and inner node is an item');
  await t.rejects(source.exportSnapshot(stream), InvalidArgumentError, 'an existing file is not overwritten');
  await source.close();

  const imported = await CommitStore.importSnapshot(join(dir, 'dst'), 6, stream, { snapshotInterval: 0 });
  t.equal(imported.items, exported.items);
  const copy = await CommitStore.open(join(dir, 'dst'), { snapshotInterval: 0 });
  t.equal(copy.version(), 6);
  t.equal(hex(copy.lastCommitInfo().appHash), hex(infos[5]!.appHash), 'same app hash as the source');
  copy.applyChangesets(scBlock(7));
  const seven = await copy.commit();
  const reference = await CommitStore.open(join(dir, 'src'), { snapshotInterval: 0 });
  const [expected] = await commitBlocks(reference, 7, 7);
  t.equal(hex(seven.appHash), hex(expected!.appHash), 'and the chain goes on identically');
  await copy.close();
  await reference.close();
  await t.rejects(CommitStore.importSnapshot(join(dir, 'dst'), 6, stream), InvalidArgumentError, 'a non-empty target is refused');

  // A node without FlatKV exports evm as a memiavl tree; a FlatKV node takes its keys.
  const legacy = await CommitStore.open(join(dir, 'legacy'), { snapshotInterval: 0, flatkv: false });
  await commitBlocks(legacy, 1, 3);
  const legacyStream = join(dir, 'legacy.snapshot');
  await legacy.exportSnapshot(legacyStream);
  await legacy.close();
  await CommitStore.importSnapshot(join(dir, 'fromlegacy'), 3, legacyStream);
  const fromLegacy = await CommitStore.open(join(dir, 'fromlegacy'), { snapshotInterval: 0 });
  t.equal(fromLegacy.version(), 3);
  const nonce = scBlock(3).find((c) => c.name === 'evm')!.pairs.find((p) => p.key[0] === 0x0a)!;
  t.equal(hex(fromLegacy.get('evm', nonce.key)!), hex(nonce.value!));
  t.same(fromLegacy.lastCommitInfo().storeInfos.map((i) => i.name), ['acc', 'bank', 'evm_lattice']);
  await fromLegacy.close();

  writeFileSync(join(dir, 'junk.snapshot'), Buffer.from([0x05, 0x0a, 0x03, 0x0a, 0x01]));
  await t.rejects(CommitStore.importSnapshot(join(dir, 'junk'), 1, join(dir, 'junk.snapshot')), InvalidArgumentError);
});
