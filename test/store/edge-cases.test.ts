/**
 * Focused cases at the edges of the store's contract, on both layouts: version 0, reads below
 * the earliest version, repeated prunes, a prune racing a background compaction, what
 * rawEntries and getMany return, store names that could alias one another, value sizes,
 * version markers and close(). Each is small enough that a failure names the broken rule;
 * several are minimal reproductions of mismatches the randomized model test runs into.
 */
import t from 'tap';
import { InvalidArgumentError, MvccStore, type Backend } from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { bytes } from '../helpers/bytes.js';

async function openStore(dir: string, backend: Backend): Promise<MvccStore> {
  return MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
}

/** [key, value] pairs of an iteration, as strings for readable diffs. */
function listed(store: MvccStore, name: string, version: number, reverse = false): string[] {
  return [...store.iterator(name, version, { reverse })].map(([k, v]) => `${k.toString('latin1')}=${v.toString('latin1')}`);
}

for (const backend of BACKENDS) {
  t.test(`${backend}: reads at version 0 see nothing, not even blocks written later`, async (t) => {
    // Version 0 is stored as 1, so nothing is ever stored at or below 0.
    const store = await openStore(t.testdir(), backend);
    await store.applyChangesets(0, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('genesis') }] }]);
    await store.applyChangesets(7, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('seven') }, { key: bytes('b'), value: bytes('seven') }] }]);
    await store.drain();
    t.equal(store.get('bank', 0, bytes('a')), undefined, 'get at 0');
    t.equal(store.has('bank', 0, bytes('b')), false, 'has at 0');
    t.same(Array.from(store.getMany('bank', 0, [bytes('a'), bytes('b')])), [undefined, undefined], 'getMany at 0');
    t.same(listed(store, 'bank', 0), [], 'forward iterator at 0');
    t.same(listed(store, 'bank', 0, true), [], 'reverse iterator at 0');
    t.same(listed(store, 'bank', 1), ['a=genesis'], 'the genesis block is read at version 1');
    await store.close();
  });

  t.test(`${backend}: an iterator below the earliest version is empty, like get`, async (t) => {
    const store = await openStore(t.testdir(), backend);
    for (let version = 1; version <= 3; version++) {
      await store.applyChangesets(version, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes(`v${version}`) }] }]);
    }
    await store.drain();
    await store.prune(2);
    t.equal(store.earliestVersion(), 3, 'earliest is 3 after prune(2)');
    t.equal(store.get('bank', 1, bytes('a')), undefined, 'get at 1 finds nothing');
    t.same(listed(store, 'bank', 1), [], 'a forward iterator at 1 is empty');
    t.same(listed(store, 'bank', 2, true), [], 'a reverse iterator at 2 is empty');
    t.same(listed(store, 'bank', 3), ['a=v3'], 'an iterator at earliest sees the data');
    await store.close();
  });

  t.test(`${backend}: a prune below an earlier prune height changes nothing`, async (t) => {
    const store = await openStore(t.testdir(), backend);
    for (let version = 1; version <= 10; version++) {
      await store.applyChangesets(version, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes(`v${version}`) }] }]);
    }
    await store.drain();
    t.same(await store.prune(5), { versionsDeleted: 4 }, 'prune(5) drops versions 1-4 of the key');
    let lower: unknown;
    try {
      lower = await store.prune(3);
    } catch (error) {
      lower = error;
    }
    t.same(lower, { versionsDeleted: 0 }, 'prune(3) afterwards resolves and deletes nothing');
    t.equal(store.earliestVersion(), 6, 'earliest stays 6');
    t.same(await store.prune(5), { versionsDeleted: 0 }, 'prune(5) again deletes nothing');
    t.same(store.get('bank', 6, bytes('a')), bytes('v6'), 'reads at earliest are unchanged');
    await store.close();
  });

  t.test(`${backend}: a key written by genesis and block 1 is one version to a prune, even across a flush`, async (t) => {
    // Genesis (0) and block 1 both store at version 1; the prune(0) in between flushes the
    // genesis write to its own file, so the rocksdb layout holds two entries of `a` at 1.
    const dir = t.testdir();
    let store = await openStore(dir, backend);
    await store.applyChangesets(0, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('genesis') }, { key: bytes('b'), value: bytes('genesis') }] }]);
    await store.drain();
    t.same(await store.prune(0), { versionsDeleted: 0 }, 'prune(0) deletes nothing');
    await store.applyChangesets(1, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('one') }] }]);
    await store.drain();
    await store.close();
    // Reopened in between: what the store knows about the rewrite survives a restart.
    store = await openStore(dir, backend);
    await store.applyChangesets(2, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('two') }, { key: bytes('b'), value: bytes('two') }] }]);
    await store.drain();
    t.same(await store.prune(2), { versionsDeleted: 2 }, 'prune(2) drops a@1 and b@1: two versions');
    t.same(store.get('bank', 3, bytes('a')), bytes('two'), 'a reads its version 2');
    t.same(await store.prune(2), { versionsDeleted: 0 }, 'the same prune again deletes nothing');
    await store.close();
  });

  t.test(`${backend}: rawEntries reports each retained entry at the version it was written`, async (t) => {
    const store = await openStore(t.testdir(), backend);
    await store.applyChangesets(1, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('one') }] }]);
    await store.applyChangesets(5, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('five') }] }]);
    await store.applyChangesets(6, [{ name: 'bank', pairs: [{ key: bytes('b'), value: bytes('six') }] }]);
    await store.drain();
    const raw = () => [...store.rawEntries()].map((e) => `${e.store} ${e.key.toString()}@${e.version}=${e.value.toString()}`);
    t.same(raw(), ['bank a@5=five', 'bank a@1=one', 'bank b@6=six'], 'before pruning');
    await store.prune(5);
    // a@5 is the newest version of a at or below 5, so it stays, still written at 5.
    t.same(raw(), ['bank a@5=five', 'bank b@6=six'], 'after prune(5)');
    await store.compact();
    t.same(raw(), ['bank a@5=five', 'bank b@6=six'], 'after a full compaction');
    await store.close();
  });

  t.test(`${backend}: getMany has an entry for every key, undefined when absent`, async (t) => {
    const store = await openStore(t.testdir(), backend);
    await store.applyChangesets(1, [{ name: 'bank', pairs: [{ key: bytes('b'), value: bytes('B') }] }]);
    await store.drain();
    const values = store.getMany('bank', 1, [bytes('a'), bytes('b'), bytes('c')]);
    t.equal(values.length, 3, 'one slot per key');
    // A hole instead of undefined is skipped by map/forEach/filter/in and so drops keys silently.
    t.same(Object.keys(values), ['0', '1', '2'], 'every slot is set (no holes)');
    t.same(values.map((v) => v?.toString() ?? 'absent'), ['absent', 'B', 'absent'], 'map sees all three keys');
    await store.close();
  });

  t.test(`${backend}: store names are kept apart`, async (t) => {
    const store = await openStore(t.testdir(), backend);
    const write = (name: string, key: string, value: string) => ({ name, pairs: [{ key: bytes(key), value: bytes(value) }] });
    const longer = 'ä'.repeat(64); // 128 UTF-8 bytes
    const shorter = 'ä'.repeat(63);
    await store.applyChangesets(1, [
      write('bank', 'k', 'bank'),
      write('bank2', 'k', 'bank2'),
      write('b', 'ank/k', 'b'),
      write(shorter, 'k', 'shorter'),
      write(longer, 'k', 'longer'),
    ]);
    await store.drain();
    t.same(listed(store, 'bank', 1), ['k=bank'], 'bank sees only its own key, not bank2 or b');
    t.same(listed(store, 'b', 1), ['ank/k=b'], 'b sees only its own key');
    t.same(store.get(longer, 1, bytes('k')), bytes('longer'), 'a 128-byte store name reads its own value');
    t.same(listed(store, longer, 1), ['k=longer'], 'and iterates its own keys');
    t.same(store.get(shorter, 1, bytes('k')), bytes('shorter'), 'a 126-byte name that is its prefix reads its own');

    // `s/k:<name>/<key>` is ambiguous when a name holds '/': store "bank/x", key "y" and store
    // "bank", key "x/y" are the same bytes. Such a name must be refused, or kept apart.
    const refusedOr = async (fn: () => unknown): Promise<unknown> => {
      try {
        return await fn();
      } catch (error) {
        return error instanceof InvalidArgumentError ? 'refused' : error;
      }
    };
    await store.applyChangesets(2, [write('bank', 'x/y', 'bank')]);
    const slashWrite = await refusedOr(() => store.applyChangesets(3, [write('bank/x', 'z', 'slash')]));
    await store.drain();
    t.same(listed(store, 'bank', 3), ['k=bank', 'x/y=bank'], `bank does not see keys written to store "bank/x" (${slashWrite === 'refused' ? 'refused' : 'accepted'})`);
    const aliased = await refusedOr(() => store.get('bank/x', 3, bytes('y')));
    t.ok(aliased === 'refused' || aliased === undefined, `get on store "bank/x" does not read key x/y of bank (got ${String(aliased)})`);
    const listedAliased = await refusedOr(() => listed(store, 'bank/x', 3));
    t.ok(listedAliased === 'refused' || (Array.isArray(listedAliased) && !listedAliased.includes('y=bank')), 'iterating store "bank/x" does not list bank\'s key x/y');
    await store.close();
  });
}

for (const backend of BACKENDS) {
  t.test(`${backend}: version markers only rise, and survive a reopen`, async (t) => {
    const dir = t.testdir();
    let store = await openStore(dir, backend);
    for (let version = 1; version <= 6; version++) {
      await store.applyChangesets(version, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes(`v${version}`) }] }]);
    }
    await store.drain();
    store.setEarliestVersion(5);
    store.setEarliestVersion(3);
    t.equal(store.earliestVersion(), 5, 'setEarliestVersion(3) after 5 leaves earliest at 5');
    t.equal(store.get('bank', 4, bytes('a')), undefined, 'get below earliest finds nothing');
    t.same(listed(store, 'bank', 4), [], 'an iterator below earliest is empty');
    t.same(store.get('bank', 5, bytes('a')), bytes('v5'), 'get at earliest finds the value written there');
    store.setLatestVersion(20);
    store.setLatestVersion(15);
    t.equal(store.latestVersion(), 20, 'setLatestVersion(15) after 20 leaves latest at 20');
    await store.close();
    store = await openStore(dir, backend);
    t.equal(store.earliestVersion(), 5, 'earliest is 5 after a reopen');
    t.equal(store.latestVersion(), 20, 'latest is 20 after a reopen');
    t.same(store.get('bank', 20, bytes('a')), bytes('v6'), 'reads above the last block see its values');
    await store.close();
  });

  t.test(`${backend}: values and keys of any size read back byte for byte`, async (t) => {
    // 64 KiB is where get() switches from its scratch buffer to a Buffer of its own.
    const sizes = [0, 1, 65_535, 65_536, 65_537, 1 << 20, 5 << 20];
    const pairs: Array<{ key: Buffer; value: Buffer }> = sizes.map((size, i) => ({ key: bytes(`size${i}`), value: Buffer.alloc(size, i + 1) }));
    pairs.push({ key: Buffer.alloc(70_000, 0xff), value: bytes('a 70000-byte key') });
    const store = await openStore(t.testdir(), backend);
    await store.applyChangesets(1, [{ name: 'bank', pairs }]);
    await store.drain();
    const label = (i: number) => (i < sizes.length ? `a ${sizes[i]}-byte value` : 'the value of a 70000-byte key');
    pairs.forEach(({ key, value }, i) => t.ok(store.get('bank', 1, key)?.equals(value), `get: ${label(i)}`));
    const many = store.getMany('bank', 1, pairs.map((p) => p.key));
    pairs.forEach(({ value }, i) => t.ok(many[i]?.equals(value), `getMany: ${label(i)}`));
    const listedBack = new Map([...store.iterator('bank', 1)].map(([k, v]) => [k.toString('latin1'), v]));
    pairs.forEach(({ key, value }, i) => t.ok(listedBack.get(key.toString('latin1'))?.equals(value), `iterator: ${label(i)}`));
    await store.close();
  });
}

for (const backend of BACKENDS) {
  t.test(`${backend}: close() waits for blocks submitted before it`, async (t) => {
    const dir = t.testdir();
    const store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 100 });
    // Submitted without waiting, then closed at once: close must log and apply all of them.
    const writes = Array.from({ length: 20 }, (_, i) =>
      store.applyChangesets(i + 1, [{ name: 'bank', pairs: [{ key: bytes(`k${i}`), value: bytes(`v${i + 1}`) }] }]),
    );
    await store.close();
    const settled = await Promise.allSettled(writes);
    t.same(settled.map((s) => s.status), Array(20).fill('fulfilled'), 'every write submitted before close() resolves');
    const reopened = await openStore(dir, backend);
    t.equal(reopened.latestVersion(), 20, 'the reopened store is at the last submitted version');
    t.equal([...reopened.iterator('bank', 20)].length, 20, 'with every block applied');
    await reopened.close();
  });
}

for (const backend of BACKENDS) {
  t.test(`${backend}: a prune drops old versions even when the store has just reopened a few times`, async (t) => {
    // Each reopen leaves the replayed write-ahead log as one more level-0 file; with three
    // there, the prune's own flush makes the fourth, which starts a background compaction
    // while the prune compacts. The prune must still drop what it should.
    const dir = t.testdir();
    const filler = (version: number) =>
      Array.from({ length: 20_000 }, (_, i) => ({ key: bytes(`f${String(i).padStart(5, '0')}`), value: bytes(`v${version}/${i}`) }));
    let store = await openStore(dir, backend);
    for (let version = 1; version <= 3; version++) {
      await store.applyChangesets(version, [{ name: 'bank', pairs: [...filler(version), { key: bytes('a'), value: bytes(`a${version}`) }] }]);
      await store.close();
      store = await openStore(dir, backend);
    }
    await store.applyChangesets(4, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('a4') }] }]);
    await store.drain();
    // Versions 1 and 2 of the 20,001 keys go; version 3 stays as the newest at or below 3.
    t.same(await store.prune(3), { versionsDeleted: 40_002 }, 'prune(3) deletes versions 1 and 2 of every key');
    const left = [...store.rawEntries()].filter((e) => e.key.equals(bytes('a'))).length;
    t.equal(left, 2, 'key a keeps only the versions visible at 4 and at 3');
    t.same(store.get('bank', 4, bytes('f00000')), bytes('v3/0'), 'reads at the new earliest version (4) see the values kept from 3');
    await store.close();
  });
}
