/**
 * Routing of the EVM state-store split (spec, "What the service does" 2, 3 and 6): with
 * `evm-ss-split = true` the changesets of store "evm" go only to the EVM SS under
 * `data/evm_ss/` and every other store only to the Cosmos SS; reads of "evm" are served only by
 * the EVM SS, with no fallback; the EVM SS is point-query only. With separate DBs each key kind
 * lands in its own sub-DB, and the full key is stored. Every case runs on both backends and,
 * where the EVM SS layout matters, with one and with five EVM DBs.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { memoryLogger } from '../../src/log/logger.js';
import {
  CompositeStateStore,
  InvalidArgumentError,
  NotSupportedError,
  cosmosStoreDir,
  evmStoreDir,
  type Backend,
  type KVPair,
  type NamedChangeset,
} from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import {
  EVM_SUB_DBS,
  address,
  evmKey,
  expectedSubDb,
  malformedEvmKeys,
  rawEntriesOf,
  slot,
  ssConfig,
  strings,
  versionsOf,
  type EvmSubDb,
} from './fixtures/helpers.js';

const SEPARATE_DBS = [false, true] as const;

function set(key: Buffer, value: string): KVPair {
  return { key, value: Buffer.from(value, 'latin1') };
}

function hex(key: Uint8Array): string {
  return Buffer.from(key).toString('hex');
}

async function openSplit(dir: string, backend: Backend, separateDbs: boolean): Promise<CompositeStateStore> {
  return CompositeStateStore.open(dir, ssConfig(backend, true, separateDbs), memoryLogger().logger);
}

/** One key of every kind the EVM SS routes, plus the malformed ones that must go to legacy. */
function keysOfEveryKind(n: number): Buffer[] {
  const a = address(n);
  return [
    evmKey.nonce(a),
    evmKey.codeHash(a),
    evmKey.code(a),
    evmKey.storage(a, slot(1)),
    evmKey.storage(a, slot(2)),
    evmKey.storage(address(n + 1), slot(1)),
    ...malformedEvmKeys(n),
  ];
}

/** Keys of an EVM DB directory's raw entries, as hex, sorted. */
function keySet(entries: ReadonlyArray<{ key: Buffer }>): string[] {
  return [...new Set(entries.map((e) => hex(e.key)))].sort();
}

for (const backend of BACKENDS) {
  for (const separateDbs of SEPARATE_DBS) {
    const layout = `${backend}, separateDbs=${separateDbs}`;

    t.test(`${layout}: "evm" changesets land only in the EVM SS, other stores only in the Cosmos SS`, async (t) => {
      const dir = t.testdir();
      const evmKeys = keysOfEveryKind(1);
      const store = await openSplit(dir, backend, separateDbs);
      const block1: NamedChangeset[] = [
        { name: 'bank', pairs: [set(Buffer.from('balance/alice'), 'bank-1')] },
        { name: 'evm', pairs: evmKeys.map((k, i) => set(k, `evm-1-${i}`)) },
        { name: 'acc', pairs: [set(Buffer.from('acct/alice'), 'acc-1')] },
      ];
      await store.applyChangesets(1, block1);
      await store.applyChangesets(2, [{ name: 'evm', pairs: evmKeys.map((k, i) => set(k, `evm-2-${i}`)) }]);
      // applyChangesets resolves once the block is logged; drain() waits until it is applied.
      await store.drain();

      t.same(strings(store.getMany('evm', 2, evmKeys)), evmKeys.map((_, i) => `evm-2-${i}`), 'the composite reads every "evm" key back');
      t.same(strings(store.getMany('evm', 1, evmKeys)), evmKeys.map((_, i) => `evm-1-${i}`), 'and its version-1 values at version 1');
      t.same(strings(store.cosmos.getMany('evm', 2, evmKeys)), evmKeys.map(() => undefined), 'the Cosmos SS has none of them');
      t.notOk(evmKeys.some((k) => store.cosmos.has('evm', 2, k)), 'the Cosmos SS has() none of them');
      t.equal(store.get('bank', 2, Buffer.from('balance/alice'))?.toString(), 'bank-1', 'bank is read from the Cosmos SS');
      t.equal(store.cosmos.get('acc', 2, Buffer.from('acct/alice'))?.toString(), 'acc-1', 'acc is in the Cosmos SS');
      // The EVM SS takes store "evm" only; asking it for another store is the caller's mistake.
      t.throws(() => store.evm?.get('bank', 2, Buffer.from('balance/alice')), InvalidArgumentError, 'the EVM SS refuses to serve "bank"');
      await store.close();

      // On disk, through read-only opens of each DB: nothing crossed over.
      const cosmosEntries = await rawEntriesOf(cosmosStoreDir(dir, backend), backend);
      t.same([...new Set(cosmosEntries.map((e) => e.store))].sort(), ['acc', 'bank'], 'the Cosmos SS DB holds bank and acc, and no "evm" entry');
      const evmDbs = separateDbs ? EVM_SUB_DBS.map((name) => join(evmStoreDir(dir), name)) : [evmStoreDir(dir)];
      const evmEntries = (await Promise.all(evmDbs.map((d) => rawEntriesOf(d, backend)))).flat();
      t.same([...new Set(evmEntries.map((e) => e.store))], ['evm'], 'the EVM SS DBs hold store "evm" only');
      t.same(keySet(evmEntries), evmKeys.map(hex).sort(), 'the EVM SS holds exactly the keys written to "evm"');
      t.equal(evmEntries.length, 2 * evmKeys.length, 'both versions of every "evm" key are kept');
    });

    t.test(`${layout}: reads of "evm" come only from the EVM SS, with no fallback to the Cosmos SS`, async (t) => {
      const dir = t.testdir();
      const store = await openSplit(dir, backend, separateDbs);
      const inBoth = evmKey.storage(address(7), slot(7));
      const onlyCosmos = [evmKey.storage(address(8), slot(8)), evmKey.nonce(address(8)), malformedEvmKeys(8)[0] as Buffer];
      await store.applyChangesets(1, [{ name: 'evm', pairs: [set(inBoth, 'from-evm-ss')] }]);
      await store.applyChangesets(2, [{ name: 'bank', pairs: [set(Buffer.from('b'), 'b')] }]);
      await store.drain();
      // Plant "evm" data in the Cosmos SS behind the composite's back, at its current latest
      // version, as a stale pre-split copy would sit there.
      await store.cosmos.import(2, [
        { store: 'evm', key: inBoth, value: Buffer.from('from-cosmos-ss') },
        ...onlyCosmos.map((key) => ({ store: 'evm', key, value: Buffer.from('from-cosmos-ss') })),
      ]);
      t.same(strings(store.cosmos.getMany('evm', 2, onlyCosmos)), onlyCosmos.map(() => 'from-cosmos-ss'), 'the planted keys are in the Cosmos SS');

      t.equal(store.get('evm', 2, inBoth)?.toString(), 'from-evm-ss', 'a key in both is read from the EVM SS');
      for (const key of onlyCosmos) {
        t.equal(store.get('evm', 2, key), undefined, `get misses ${hex(key)}, present only in the Cosmos SS`);
        t.equal(store.has('evm', 2, key), false, `has is false for ${hex(key)}`);
      }
      t.same(strings(store.getMany('evm', 2, [...onlyCosmos, inBoth])), [...onlyCosmos.map(() => undefined), 'from-evm-ss'], 'getMany misses them too');
      t.equal(store.storeFor('evm'), store.evm, '"evm" is served by the EVM SS');
      t.equal(store.storeFor('bank'), store.cosmos, 'other stores by the Cosmos SS');
      await store.close();
    });

    t.test(`${layout}: every key kind lands in its DB, with the full key stored`, async (t) => {
      const dir = t.testdir();
      const keys = keysOfEveryKind(3);
      const store = await openSplit(dir, backend, separateDbs);
      await store.applyChangesets(1, [{ name: 'evm', pairs: keys.map((k, i) => set(k, `v${i}`)) }]);
      await store.close();

      if (!separateDbs) {
        for (const name of EVM_SUB_DBS) t.notOk(existsSync(join(evmStoreDir(dir), name)), `no ${name}/ sub-DB directory without separate DBs`);
        const entries = await rawEntriesOf(evmStoreDir(dir), backend);
        t.same(keySet(entries), keys.map(hex).sort(), 'the one EVM DB at data/evm_ss holds every full key');
        return;
      }
      for (const name of EVM_SUB_DBS) {
        const entries = await rawEntriesOf(join(evmStoreDir(dir), name), backend);
        const expected = keys.filter((k) => expectedSubDb(k) === name);
        t.same(keySet(entries), expected.map(hex).sort(), `${name}/ holds exactly the ${name} keys, stored as the full original key`);
        t.ok(entries.every((e) => e.store === 'evm'), `${name}/ stores them under store "evm"`);
        t.same(
          entries.map((e) => e.value.toString()).sort(),
          expected.map((k) => `v${keys.indexOf(k)}`).sort(),
          `${name}/ holds their values`,
        );
      }
      // The malformed keys are the ones that must not be mistaken for a routed kind.
      t.ok(malformedEvmKeys(3).every((k) => expectedSubDb(k) === 'legacy'), 'every malformed key is expected in legacy/');
    });

    if (separateDbs) {
      t.test(`${layout}: storage keys alone land only in storage/, and every sub-DB still advances`, async (t) => {
        const dir = t.testdir();
        const keys = [evmKey.storage(address(4), slot(1)), evmKey.storage(address(4), slot(2)), evmKey.storage(address(5), slot(1))];
        const store = await openSplit(dir, backend, true);
        await store.applyChangesets(1, [{ name: 'evm', pairs: keys.map((k) => set(k, 'x')) }]);
        await store.applyChangesets(2, [{ name: 'evm', pairs: [set(keys[0] as Buffer, 'y')] }]);
        await store.close();
        const holders: EvmSubDb[] = [];
        for (const name of EVM_SUB_DBS) {
          const subDir = join(evmStoreDir(dir), name);
          const entries = await rawEntriesOf(subDir, backend);
          if (entries.length > 0) holders.push(name);
          t.equal((await versionsOf(subDir, backend)).latest, 2n, `${name}/ is at version 2 (blocks that skip it still advance it)`);
        }
        t.same(holders, ['storage'], 'only storage/ holds entries');
        t.same(keySet(await rawEntriesOf(join(evmStoreDir(dir), 'storage'), backend)), keys.map(hex).sort(), 'storage/ holds the three keys in full');
      });
    }

    t.test(`${layout}: getMany puts each value at its key's position across kinds`, async (t) => {
      const dir = t.testdir();
      const a = address(20);
      const malformed = malformedEvmKeys(20);
      const malformedNonce = malformed[1] as Buffer; // 0x0a with a 19-byte address
      const storageTooLong = malformed[6] as Buffer; // 0x03 with a 33-byte slot
      // Interleaved kinds, a key and its malformed twin of another sub-DB, and absent keys.
      const keys = [
        evmKey.storage(a, slot(1)),
        evmKey.nonce(a),
        evmKey.storage(a, slot(99)), // never written
        malformedNonce,
        evmKey.code(a),
        Buffer.concat([evmKey.nonce(a), Buffer.from([0x00])]), // the nonce key plus one byte: legacy
        evmKey.codeHash(a),
        evmKey.nonce(address(21)), // never written
        storageTooLong,
        evmKey.storage(a, slot(2)),
        evmKey.codeSize(a),
      ];
      const written = new Set([0, 1, 3, 4, 5, 6, 8, 9, 10]);
      const store = await openSplit(dir, backend, separateDbs);
      await store.applyChangesets(5, [{ name: 'evm', pairs: keys.flatMap((k, i) => (written.has(i) ? [set(k, `five-${i}`)] : [])) }]);
      // Version 6 rewrites some keys and deletes one, so positions must also come from the right version.
      await store.applyChangesets(6, [
        {
          name: 'evm',
          pairs: [set(keys[1] as Buffer, 'six-1'), set(keys[5] as Buffer, 'six-5'), set(keys[9] as Buffer, 'six-9'), { key: keys[4] as Buffer, value: null }],
        },
      ]);
      await store.drain();
      const at5 = keys.map((_, i) => (written.has(i) ? `five-${i}` : undefined));
      const at6 = at5.map((v, i) => (i === 1 || i === 5 || i === 9 ? `six-${i}` : i === 4 ? undefined : v));
      t.same(strings(store.getMany('evm', 5, keys)), at5, 'version 5: every value at its position');
      t.same(strings(store.getMany('evm', 6, keys)), at6, 'version 6: rewrites and the delete at their positions');
      t.same(strings(store.getMany('evm', 4, keys)), keys.map(() => undefined), 'version 4: nothing yet');
      t.same(strings(keys.map((k) => store.get('evm', 6, k))), at6, 'get agrees with getMany key by key');
      t.same(keys.map((k) => store.has('evm', 6, k)), at6.map((v) => v !== undefined), 'has agrees too');
      const reversed = [...keys].reverse();
      t.same(strings(store.getMany('evm', 6, reversed)), [...at6].reverse(), 'the same keys in reverse order give the values in reverse order');
      await store.close();

      const reopened = await openSplit(dir, backend, separateDbs);
      t.same(strings(reopened.getMany('evm', 6, keys)), at6, 'the same after a reopen');
      await reopened.close();
    });

    t.test(`${layout}: the EVM SS refuses iteration; other stores iterate`, async (t) => {
      const dir = t.testdir();
      const store = await openSplit(dir, backend, separateDbs);
      const bank = ['a', 'b', 'c', 'd'].map((k) => set(Buffer.from(k), `bank-${k}`));
      await store.applyChangesets(1, [
        { name: 'bank', pairs: bank },
        { name: 'evm', pairs: keysOfEveryKind(30).map((k) => set(k, 'e')) },
      ]);
      await store.drain();
      const attempts: Array<[string, () => unknown]> = [
        ['a full forward iterator', () => store.iterator('evm', 1)],
        ['a reverse iterator', () => store.iterator('evm', 1, { reverse: true })],
        ['a bounded iterator from a storage key', () => store.iterator('evm', 1, { start: evmKey.storage(address(30), slot(0)), end: Buffer.from([0x04]) })],
        ['an iterator of the EVM SS itself', () => store.evm?.iterator('evm', 1)],
      ];
      for (const [what, attempt] of attempts) {
        t.throws(attempt, NotSupportedError, `${what} throws NotSupportedError`);
        try {
          attempt();
        } catch (error) {
          const message = (error as Error).message;
          t.match(message, /point-query only/, `${what}: the message says the EVM SS is point-query only`);
          t.match(message, /iteration .*must be served by the Cosmos SS/, `${what}: and that iteration must be served by the Cosmos SS`);
        }
      }
      t.same(
        [...store.iterator('bank', 1)].map(([k, v]) => [k.toString(), v.toString()]),
        bank.map((p) => [p.key.toString(), p.value?.toString()]),
        'bank iterates forward through the composite',
      );
      t.same(
        [...store.iterator('bank', 1, { start: Buffer.from('b'), end: Buffer.from('d'), reverse: true })].map(([k]) => k.toString()),
        ['c', 'b'],
        'and backward within bounds',
      );
      await store.close();
    });

    t.test(`${layout}: blocks without "evm" changesets, or with none at all, advance both sides`, async (t) => {
      const dir = t.testdir();
      const store = await openSplit(dir, backend, separateDbs);
      const e = evmKey.nonce(address(40));
      const blocks: Array<[number, NamedChangeset[], string]> = [
        [1, [{ name: 'evm', pairs: [set(e, 'n1')] }, { name: 'bank', pairs: [set(Buffer.from('b'), 'b1')] }], 'a block touching both sides'],
        [2, [], 'an empty block'],
        [3, [{ name: 'bank', pairs: [set(Buffer.from('b'), 'b3')] }], 'a bank-only block'],
        [4, [{ name: 'evm', pairs: [set(e, 'n4')] }], 'an evm-only block'],
        [7, [], 'an empty block after a gap'],
      ];
      for (const [version, changesets, what] of blocks) {
        await store.applyChangesets(version, changesets);
        // latestVersion() reports applied blocks; the ack only means logged.
        await store.drain();
        t.equal(BigInt(store.cosmos.latestVersion()), BigInt(version), `${what}: the Cosmos SS is at ${version}`);
        t.equal(BigInt(store.evm?.latestVersion() ?? -1), BigInt(version), `${what}: the EVM SS is at ${version}`);
        t.equal(BigInt(store.latestVersion()), BigInt(version), `${what}: the composite is at ${version}`);
      }
      t.same(strings([1, 2, 3, 4, 7].map((v) => store.get('evm', v, e))), ['n1', 'n1', 'n1', 'n4', 'n4'], 'evm values across the empty blocks');
      t.same(strings([1, 2, 3, 4, 7].map((v) => store.get('bank', v, Buffer.from('b')))), ['b1', 'b1', 'b3', 'b3', 'b3'], 'bank values across them');
      await store.close();

      const dbs = separateDbs ? EVM_SUB_DBS.map((name) => join(evmStoreDir(dir), name)) : [evmStoreDir(dir)];
      for (const db of [cosmosStoreDir(dir, backend), ...dbs]) {
        t.equal((await versionsOf(db, backend)).latest, 7n, `${db.slice(dir.length + 1)} is at version 7 on disk`);
      }
    });
  }

  for (const separateDbs of SEPARATE_DBS) {
    // The composite reports the Cosmos SS's applied version as the SS's latest; a reader that
    // queries at it must find that version's EVM state, not an older one the EVM SS still
    // serves because it has not applied the block yet. Each block rewrites one EVM key to its
    // version, and the key is read at latestVersion() right after the ack, as an RPC query at
    // the node's latest height would. Timing decides whether a lag shows, so the test writes
    // up to 400 blocks and stops at the first stale read.
    t.test(`${backend}, separateDbs=${separateDbs}: a read at latestVersion() sees that version's EVM state`, async (t) => {
      const dir = t.testdir();
      const store = await openSplit(dir, backend, separateDbs);
      const counter = evmKey.nonce(address(60));
      let stale = '';
      for (let v = 1; v <= 400 && !stale; v++) {
        await store.applyChangesets(v, [{ name: 'evm', pairs: [set(counter, String(v))] }]);
        const latest = Number(store.latestVersion());
        if (latest === 0) continue;
        const seen = store.get('evm', latest, counter)?.toString();
        if (seen !== String(latest)) {
          stale = `after block ${v}: latestVersion() = ${latest}, but "evm" at ${latest} reads ${seen ?? '(absent)'} (EVM SS latest ${store.evm?.latestVersion()})`;
        }
      }
      t.equal(stale, '', 'no read at latestVersion() returned an older version of the EVM key');
      await store.close();
    });
  }

  t.test(`${backend}: with the split off, data/evm_ss is never created and "evm" lives in the one SS`, async (t) => {
    const dir = t.testdir();
    // evmSsSeparateDbs is set on purpose: without the split it must not matter.
    const config = ssConfig(backend, false, true);
    const key = evmKey.storage(address(50), slot(1));
    let store = await CompositeStateStore.open(dir, config, memoryLogger().logger);
    t.equal(store.evm, undefined, 'no EVM SS is opened');
    t.equal(store.split, false, 'the composite reports no split');
    await store.applyChangesets(1, [
      { name: 'evm', pairs: [set(key, 'e1')] },
      { name: 'bank', pairs: [set(Buffer.from('b'), 'b1')] },
    ]);
    await store.drain();
    t.equal(store.cosmos.get('evm', 1, key)?.toString(), 'e1', '"evm" is written to the Cosmos SS');
    t.equal(store.get('evm', 1, key)?.toString(), 'e1', 'and read from it');
    t.same([...store.iterator('evm', 1)].map(([k]) => hex(k)), [hex(key)], '"evm" can be iterated without the split');
    await store.close();
    store = await CompositeStateStore.open(dir, config, memoryLogger().logger);
    await store.applyChangesets(2, []);
    await store.close();
    t.notOk(existsSync(evmStoreDir(dir)), 'data/evm_ss does not exist');
  });
}
