/**
 * Bad input and faults, on both layouts. Each case asserts the typed error class and that the
 * message tells the caller what to do; after each, valid operations still succeed.
 */
import t, { type Test } from 'tap';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  InvalidArgumentError,
  LayoutMismatchError,
  MvccStore,
  StoreClosedError,
  type Backend,
  type MvccStoreOptions,
  type StoreError,
  type Version,
} from '../../src/store/index.js';
import { BACKENDS, otherBackend } from '../helpers/backends.js';
import { bytes } from '../helpers/bytes.js';

type StoreErrorClass = new (message: string) => StoreError;

const MAX_U64 = 2n ** 64n - 1n;
const EMPTY = new Uint8Array(0);
const KEY = bytes('k');

// What each message must say (the remedy, not just the symptom).
const NON_EMPTY_KEY = /keys must be at least one byte long/;
const NAME_THE_STORE = /name the module store/;
const NO_SLASH = /store names must not contain '\/'/;
const NON_NEGATIVE_INTEGER = /must be a non-negative integer/;
const USE_A_BIGINT = /pass a bigint above 2\^53 - 1/;
const U64_RANGE = /versions range from 0 to 2\^64 - 1/;
const PASS_BYTES = /must be a Uint8Array or Buffer/;
const OPEN_AGAIN = /closed; open it again/;

/** Typed as the API expects, to hand it a value of the wrong type on purpose. */
function wrongType<T>(value: unknown): T {
  return value as T;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : `no error (${String(error)})`;
}

/** Runs `fn` (throwing or rejecting) and asserts the error class and the advice in its message. */
async function assertFails(t: Test, what: string, fn: () => unknown, ErrorClass: StoreErrorClass, advice: RegExp): Promise<void> {
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof ErrorClass, `${what}: throws ${ErrorClass.name} (got ${describe(error)})`);
  t.match(error instanceof Error ? error.message : '', advice, `${what}: the message says what to do`);
}

/** Writes one block at the next version and reads it back: the store still works. */
class HealthCheck {
  #version = 0;

  /** The version the next valid write will use; failing writes aim at it too. */
  get next(): number {
    return this.#version + 1;
  }

  async check(t: Test, store: MvccStore, after: string): Promise<void> {
    const version = ++this.#version;
    const value = bytes(`healthy at ${version}`);
    await store.applyChangesets(version, [{ name: 'bank', pairs: [{ key: bytes('health'), value }] }]);
    await store.drain();
    t.same(store.get('bank', version, bytes('health')), value, `after ${after}: the store still writes and reads`);
  }
}

type Case = [what: string, call: (store: MvccStore, next: number) => unknown, advice: RegExp];

function badArgumentCases(): Case[] {
  const cases: Case[] = [
    ['get with an empty key', (s) => s.get('bank', 1, EMPTY), NON_EMPTY_KEY],
    ['has with an empty key', (s) => s.has('bank', 1, EMPTY), NON_EMPTY_KEY],
    ['getMany with an empty key among good ones', (s) => s.getMany('bank', 1, [KEY, EMPTY]), NON_EMPTY_KEY],
    ['iterator with an empty start bound', (s) => s.iterator('bank', 1, { start: EMPTY }), NON_EMPTY_KEY],
    ['iterator with an empty end bound', (s) => s.iterator('bank', 1, { end: EMPTY, reverse: true }), NON_EMPTY_KEY],
    ['applyChangesets with an empty pair key', (s, v) => s.applyChangesets(v, [{ name: 'bank', pairs: [{ key: EMPTY, value: KEY }] }]), NON_EMPTY_KEY],
    ['applyChangesets deleting an empty key', (s, v) => s.applyChangesets(v, [{ name: 'bank', pairs: [{ key: EMPTY, value: null }] }]), NON_EMPTY_KEY],
    ['import with an empty key', (s, v) => s.import(v, [{ store: 'bank', key: EMPTY, value: KEY }]), NON_EMPTY_KEY],

    ['get with an empty store name', (s) => s.get('', 1, KEY), NAME_THE_STORE],
    ['has with an empty store name', (s) => s.has('', 1, KEY), NAME_THE_STORE],
    ['getMany with an empty store name', (s) => s.getMany('', 1, [KEY]), NAME_THE_STORE],
    ['iterator with an empty store name', (s) => s.iterator('', 1), NAME_THE_STORE],
    ['applyChangesets with an empty changeset name', (s, v) => s.applyChangesets(v, [{ name: '', pairs: [{ key: KEY, value: KEY }] }]), NAME_THE_STORE],
    ['import with an empty store name', (s, v) => s.import(v, [{ store: '', key: KEY, value: KEY }]), NAME_THE_STORE],

    // `s/k:<name>/<key>` would be ambiguous: store "bank/x", key "y" is store "bank", key "x/y".
    ['get with a store name holding a slash', (s) => s.get('bank/x', 1, KEY), NO_SLASH],
    ['has with a store name holding a slash', (s) => s.has('bank/x', 1, KEY), NO_SLASH],
    ['getMany with a store name holding a slash', (s) => s.getMany('bank/x', 1, [KEY]), NO_SLASH],
    ['iterator with a store name holding a slash', (s) => s.iterator('bank/x', 1), NO_SLASH],
    ['applyChangesets with a store name holding a slash', (s, v) => s.applyChangesets(v, [{ name: 'bank/x', pairs: [{ key: KEY, value: KEY }] }]), NO_SLASH],
    ['import with a store name holding a slash', (s, v) => s.import(v, [{ store: 'bank/x', key: KEY, value: KEY }]), NO_SLASH],

    ['iterator with start after end', (s) => s.iterator('bank', 1, { start: bytes('b'), end: bytes('a') }), /pass start <= end/],
    ['reverse iterator with start after end', (s) => s.iterator('bank', 1, { start: bytes('a\x00'), end: bytes('a'), reverse: true }), /pass start <= end/],
  ];

  const badVersions: Array<[string, unknown, RegExp]> = [
    ['-1', -1, NON_NEGATIVE_INTEGER],
    ['1.5', 1.5, NON_NEGATIVE_INTEGER],
    ['NaN', NaN, NON_NEGATIVE_INTEGER],
    ['Infinity', Infinity, NON_NEGATIVE_INTEGER],
    ['2^53 as a number', 2 ** 53, USE_A_BIGINT],
    ['2^64 as a bigint', 2n ** 64n, U64_RANGE],
    ['-1 as a bigint', -1n, U64_RANGE],
  ];
  for (const [name, value, advice] of badVersions) {
    const version = wrongType<Version>(value);
    cases.push(
      [`get at version ${name}`, (s) => s.get('bank', version, KEY), advice],
      [`has at version ${name}`, (s) => s.has('bank', version, KEY), advice],
      [`getMany at version ${name}`, (s) => s.getMany('bank', version, [KEY]), advice],
      [`iterator at version ${name}`, (s) => s.iterator('bank', version), advice],
      [`applyChangesets at version ${name}`, (s) => s.applyChangesets(version, [{ name: 'bank', pairs: [{ key: KEY, value: KEY }] }]), advice],
      [`prune at version ${name}`, (s) => s.prune(version), advice],
      [`setEarliestVersion(${name})`, (s) => s.setEarliestVersion(version), advice],
    );
  }

  const badKeys: Array<[string, unknown]> = [
    ['a string', 'k'],
    ['a number', 7],
    ['an array of numbers', [107]],
    ['a Uint16Array', new Uint16Array([107])],
    ['a DataView', new DataView(new ArrayBuffer(1))],
    ['undefined', undefined],
  ];
  for (const [name, value] of badKeys) {
    const key = wrongType<Uint8Array>(value);
    cases.push(
      [`get with ${name} as key`, (s) => s.get('bank', 1, key), PASS_BYTES],
      [`getMany with ${name} among the keys`, (s) => s.getMany('bank', 1, [KEY, key]), PASS_BYTES],
      [`applyChangesets with ${name} as pair key`, (s, v) => s.applyChangesets(v, [{ name: 'bank', pairs: [{ key, value: KEY }] }]), PASS_BYTES],
    );
    // An undefined bound is legal: it leaves that side of the range open.
    if (value !== undefined) cases.push([`iterator with ${name} as start`, (s) => s.iterator('bank', 1, { start: key }), PASS_BYTES]);
  }
  const stringValue = wrongType<Uint8Array>('v');
  cases.push(
    ['applyChangesets with a string as pair value', (s, v) => s.applyChangesets(v, [{ name: 'bank', pairs: [{ key: KEY, value: stringValue }] }]), PASS_BYTES],
    ['get with a number as store name', (s) => s.get(wrongType<string>(5), 1, KEY), /store name must be a string/],
    ['getMany with keys that are not an array', (s) => s.getMany('bank', 1, wrongType<Uint8Array[]>(KEY)), /keys must be an array/],
    ['prune at 2^64 - 1', (s) => s.prune(MAX_U64), /cannot prune at the maximum version/],
  );
  return cases;
}

for (const backend of BACKENDS) {
  t.test(`${backend}: bad arguments throw InvalidArgumentError and leave the store working`, async (t) => {
    const store = await MvccStore.open(t.testdir(), { backend, asyncWriteBuffer: 8 });
    const health = new HealthCheck();
    await health.check(t, store, 'opening');
    for (const [what, call, advice] of badArgumentCases()) {
      await assertFails(t, what, () => call(store, health.next), InvalidArgumentError, advice);
      await health.check(t, store, what);
    }
    await store.close();
  });

  t.test(`${backend}: version 2^64 - 1 is accepted and read back as a bigint`, async (t) => {
    const store = await MvccStore.open(t.testdir(), { backend });
    const value = bytes('at the top');
    await store.applyChangesets(MAX_U64 - 1n, [{ name: 'bank', pairs: [{ key: KEY, value: bytes('just below') }] }]);
    await store.applyChangesets(MAX_U64, [{ name: 'bank', pairs: [{ key: KEY, value }] }]);
    await store.drain();
    t.equal(store.latestVersion(), MAX_U64, 'latestVersion is 2^64 - 1, as a bigint');
    t.same(store.get('bank', MAX_U64, KEY), value, 'get at 2^64 - 1 sees the block written there');
    t.same(store.get('bank', MAX_U64 - 1n, KEY), bytes('just below'), 'get at 2^64 - 2 sees the block below it');
    t.same([...store.iterator('bank', MAX_U64)], [[KEY, value]], 'an iterator at 2^64 - 1 sees it');
    t.same(
      [...store.rawEntries()].map((e) => e.version),
      [MAX_U64, MAX_U64 - 1n],
      'rawEntries reports both versions exactly, as bigints',
    );
    await assertFails(t, 'a block below 2^64 - 1 afterwards', () => store.applyChangesets(MAX_U64 - 1n, []), InvalidArgumentError, /must not go backwards/);
    await store.prune(MAX_U64 - 1n);
    t.equal(store.earliestVersion(), MAX_U64, 'prune at 2^64 - 2 raises earliest to 2^64 - 1');
    t.same(store.get('bank', MAX_U64, KEY), value, 'the value at 2^64 - 1 survives the prune');
    await store.close();
  });

  t.test(`${backend}: versions going backwards are refused, also across a reopen`, async (t) => {
    const dir = t.testdir();
    let store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    const block = (text: string) => [{ name: 'bank', pairs: [{ key: KEY, value: bytes(text) }] }];
    await store.applyChangesets(5, block('five'));
    await assertFails(t, 'version 4 after 5', () => store.applyChangesets(4, block('four')), InvalidArgumentError, /must not go backwards/);
    // A refused block is not left half-submitted: the next ones go through.
    await store.applyChangesets(6, block('six'));
    await store.drain();
    t.same(store.get('bank', 4, KEY), undefined, 'the refused version 4 left nothing behind');
    t.same(store.get('bank', 6, KEY), bytes('six'), 'version 6 after the refusal is stored');

    // Still queued in the write buffer, a higher version already counts.
    const pending = store.applyChangesets(10, block('ten'));
    await assertFails(t, 'version 9 while 10 is queued', () => store.applyChangesets(9, block('nine')), InvalidArgumentError, /must not go backwards/);
    await pending;

    await store.close();
    store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    await assertFails(t, 'version 3 after reopening at 10', () => store.applyChangesets(3, block('three')), InvalidArgumentError, /must not go backwards/);
    await store.applyChangesets(11, block('eleven'));
    await store.drain();
    t.same(store.get('bank', 11, KEY), bytes('eleven'), 'version 11 after the refusal is stored');
    t.same(store.get('bank', 10, KEY), bytes('ten'), 'version 10 survived the reopen');
    await store.close();
  });

  t.test(`${backend}: a block below a version reached by import or setLatestVersion is refused`, async (t) => {
    // After a reopen the store refuses these (it resumes from its latest version); the same
    // state reached without a reopen must not accept them either.
    const block = [{ name: 'bank', pairs: [{ key: KEY, value: bytes('late') }] }];
    const store = await MvccStore.open(t.testdir(), { backend, asyncWriteBuffer: 8 });
    await store.import(10, [{ store: 'bank', key: KEY, value: bytes('imported') }]);
    t.equal(store.latestVersion(), 10, 'import at 10 raises latest to 10');
    await assertFails(t, 'version 9 after an import at 10', () => store.applyChangesets(9, block), InvalidArgumentError, /must not go backwards/);
    store.setLatestVersion(20);
    await assertFails(t, 'version 15 after setLatestVersion(20)', () => store.applyChangesets(15, block), InvalidArgumentError, /must not go backwards/);
    await store.applyChangesets(21, block);
    await store.drain();
    t.same(store.get('bank', 21, KEY), bytes('late'), 'version 21 is accepted and stored');
    await store.close();
  });

  t.test(`${backend}: every call on a closed store throws StoreClosedError`, async (t) => {
    const dir = t.testdir();
    const store = await MvccStore.open(join(dir, 'closed'), { backend, asyncWriteBuffer: 8 });
    // A second store stays open throughout: closing one must not disturb the other.
    const witness = await MvccStore.open(join(dir, 'witness'), { backend, asyncWriteBuffer: 8 });
    const health = new HealthCheck();
    // More entries than one native iterator batch (256), so a half-read iterator has more to fetch.
    const pairs = Array.from({ length: 300 }, (_, i) => ({ key: bytes(`key${String(i).padStart(3, '0')}`), value: bytes(`v${i}`) }));
    await store.applyChangesets(1, [{ name: 'bank', pairs }]);
    await store.drain();
    const unread = store.iterator('bank', 1);
    const halfRead = store.iterator('bank', 1);
    t.same(halfRead.next().value, [pairs[0]?.key, pairs[0]?.value], 'the half-read iterator yields its first entry before the close');
    await store.close();

    const calls: Array<[string, () => unknown]> = [
      ['get', () => store.get('bank', 1, KEY)],
      ['has', () => store.has('bank', 1, KEY)],
      ['getMany', () => store.getMany('bank', 1, [KEY])],
      ['iterator', () => store.iterator('bank', 1)],
      ['rawEntries', () => store.rawEntries().next()],
      ['applyChangesets', () => store.applyChangesets(2, [{ name: 'bank', pairs: [{ key: KEY, value: KEY }] }])],
      ['drain', () => store.drain()],
      ['prune', () => store.prune(1)],
      ['import', () => store.import(2, [{ store: 'bank', key: KEY, value: KEY }])],
      ['compact', () => store.compact()],
      ['stats', () => store.stats()],
      ['latestVersion', () => store.latestVersion()],
      ['earliestVersion', () => store.earliestVersion()],
      ['setLatestVersion', () => store.setLatestVersion(5)],
      ['setEarliestVersion', () => store.setEarliestVersion(1)],
    ];
    for (const [what, call] of calls) {
      await assertFails(t, `${what} after close`, call, StoreClosedError, OPEN_AGAIN);
      await health.check(t, witness, `${what} on a closed store`);
    }
    await assertFails(t, 'next() on an iterator created before close', () => unread.next(), StoreClosedError, /closed/);
    // The rest of the half-read iterator must not quietly end as if the data ran out.
    await assertFails(t, 'reading the rest of a half-read iterator after close', () => [...halfRead], StoreClosedError, /closed/);
    await health.check(t, witness, 'iterating on a closed store');

    await store.close();
    t.pass('closing a closed store again resolves');
    const reopened = await MvccStore.open(join(dir, 'closed'), { backend });
    t.equal(reopened.latestVersion(), 1, 'the store reopens at the version it was closed at');
    t.same([...reopened.iterator('bank', 1)].length, 300, 'and its data is all there');
    await reopened.close();
    await witness.close();
  });

  t.test(`${backend}: a directory of the other layout throws LayoutMismatchError`, async (t) => {
    const other = otherBackend(backend);
    const dir = t.testdir();
    const store = await MvccStore.open(dir, { backend });
    await store.applyChangesets(1, [{ name: 'bank', pairs: [{ key: KEY, value: bytes('v') }] }]);
    await store.close();
    const remedy = new RegExp(`set ss-backend = "${backend}"`);
    await assertFails(t, `opening a ${backend} directory as ${other}`, () => MvccStore.open(dir, { backend: other }), LayoutMismatchError, remedy);
    // The refused open must not have touched the directory.
    const again = await MvccStore.open(dir, { backend });
    t.same(again.get('bank', 1, KEY), bytes('v'), `the directory still opens as ${backend}, data intact`);
    await again.close();

    rmSync(join(dir, 'STRATA_LAYOUT'));
    for (const layout of BACKENDS) {
      await assertFails(
        t,
        `opening a database without its layout marker as ${layout}`,
        () => MvccStore.open(dir, { backend: layout }),
        LayoutMismatchError,
        /point the store at an empty directory or restore the marker/,
      );
    }
    writeFileSync(join(dir, 'STRATA_LAYOUT'), `${backend}\n`);
    const restored = await MvccStore.open(dir, { backend });
    t.same(restored.get('bank', 1, KEY), bytes('v'), 'with the marker restored the store opens again');
    await restored.close();
  });

  t.test(`${backend}: wrong option types throw InvalidArgumentError`, async (t) => {
    const dir = t.testdir();
    const cases: Array<[string, MvccStoreOptions, RegExp]> = [
      ['an unknown backend', { backend: wrongType<Backend>('leveldb') }, /use "pebbledb" or "rocksdb"/],
      ['a number as backend', { backend: wrongType<Backend>(5) }, /backend must be a string/],
      ['a string as asyncWriteBuffer', { backend, asyncWriteBuffer: wrongType<number>('8') }, /asyncWriteBuffer must be an integer/],
      ['a fraction as asyncWriteBuffer', { backend, asyncWriteBuffer: 1.5 }, /asyncWriteBuffer must be an integer/],
      ['a negative changelogKeepEntries', { backend, changelogKeepEntries: -1 }, /changelogKeepEntries must be an integer >= 0/],
      ['a block cache below 1 MiB', { backend, blockCacheBytes: 1000 }, /blockCacheBytes must be an integer >= 1048576/],
      ['a string as statistics', { backend, statistics: wrongType<boolean>('yes') }, /statistics must be a boolean/],
      ['a number as createIfMissing', { backend, createIfMissing: wrongType<boolean>(0) }, /createIfMissing must be a boolean/],
    ];
    // A store opened before the refused opens keeps working through them.
    const witness = await MvccStore.open(join(dir, 'witness'), { backend });
    const health = new HealthCheck();
    for (const [what, options, advice] of cases) {
      await assertFails(t, `open with ${what}`, () => MvccStore.open(join(dir, 'store'), options), InvalidArgumentError, advice);
      await health.check(t, witness, `open with ${what}`);
    }
    const missing = join(dir, 'missing');
    await assertFails(
      t,
      'open with createIfMissing: false where no store exists',
      () => MvccStore.open(missing, { backend, createIfMissing: false }),
      InvalidArgumentError,
      /check the path/,
    );
    await health.check(t, witness, 'open with createIfMissing: false');
    await witness.close();
    // None of the refused opens left anything behind that stops a valid open.
    for (const path of [join(dir, 'store'), missing]) {
      mkdirSync(path, { recursive: true });
      const store = await MvccStore.open(path, { backend });
      await new HealthCheck().check(t, store, `the refused opens of ${path}`);
      await store.close();
    }
  });
}
