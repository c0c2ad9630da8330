/**
 * Randomized model test of MvccStore: thousands of random writes, deletes, reads, iterations,
 * prunes and reopens against both layouts, each answer compared with an in-memory model.
 *
 * The seed is in each test's name; replay a failure with STRATA_MODEL_SEED=<seed> (and
 * STRATA_MODEL_OPS=<n> to change the run length). A run does not stop at the first mismatch:
 * the first mismatch of each kind (operation × version class) is reported with a diff, the
 * rest are counted, so one bug does not hide another.
 */
import t, { type Test } from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { MvccStore, type Backend, type NamedChangeset, type Version } from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { bytes, showBytes } from '../helpers/bytes.js';
import { MvccModel, storedVersion, type ModelPair } from '../helpers/mvcc-model.js';
import { Prng, seedFromEnv } from '../helpers/prng.js';

const OPS = Number(process.env.STRATA_MODEL_OPS ?? 10_000);
const MAX_VERSION = 2n ** 64n - 1n;

/** Store names that are prefixes of each other, so a leak across the `s/k:<name>/` boundary shows. */
const STORES = ['bank', 'bank2', 'b'] as const;
/** Keys that are prefixes of each other, hold 0x00 / 0xff (the edge bytes of key order), the
 * `/` separator of the key space and 0x09 (the MVCC trailer length byte of the pebbledb layout). */
const KEYS = [
  'a', 'a\x00', 'a\x00\x00', 'a\x00b', 'a\x09', 'a\xff', 'a\xff\xff', 'ab', 'abc', 'b',
  '\x00', '\x00\x00', '\x00\xff', '\x09', '\xff', '\xff\x00', '\xff\xff', 'k/1',
].map(bytes);
/** Written only by occasional bulk blocks, so that some iterations span several native batches. */
const FILLER_KEYS = Array.from({ length: 400 }, (_, i) => bytes(`f${String(i).padStart(3, '0')}`));
/** Blocks of at least 32768 pairs take another write path (a sorted SST file, ingested). */
const INGEST_THRESHOLD = 32_768;
const HUGE_KEYS = Array.from({ length: INGEST_THRESHOLD + 200 }, (_, i) => bytes(`h${String(i).padStart(5, '0')}`));

/** What a run does and how often. */
interface RunProfile {
  ops: number;
  reopens: number;
  /** Chance per operation of a block large enough to be ingested as an SST file. */
  hugeBlockChance: number;
}

/** The part of a tap test a run reports mismatches through. */
interface Reporter {
  same(found: unknown, wanted: unknown, message: string, extra: Record<string, unknown>): boolean;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

/** Runs `fn`, turning a throw into a comparable outcome instead of aborting the run. */
async function attempt(fn: () => unknown): Promise<Outcome> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    const e = error as Error;
    return { ok: false, error: `threw ${e.name}: ${e.message}` };
  }
}

/**
 * For long lists, only what differs: the items one side lacks (first ten each) and whether the
 * common items are out of order. A full diff of a few thousand raw entries would bury the point.
 */
function briefDifference(found: unknown, wanted: unknown): [unknown, unknown] {
  if (!Array.isArray(found) || !Array.isArray(wanted) || Math.max(found.length, wanted.length) <= 20) return [found, wanted];
  const foundSet = new Set(found.map(String));
  const wantedSet = new Set(wanted.map(String));
  const common = (list: unknown[], other: Set<string>) => list.map(String).filter((item) => other.has(item));
  return [
    {
      missing: wanted.map(String).filter((item) => !foundSet.has(item)).slice(0, 10),
      unexpected: found.map(String).filter((item) => !wantedSet.has(item)).slice(0, 10),
      inOrder: isDeepStrictEqual(common(found, wantedSet), common(wanted, foundSet)),
    },
    { missing: [], unexpected: [], inOrder: true },
  ];
}

function showValue(value: Buffer | undefined): string {
  return value === undefined ? '(absent)' : `"${showBytes(value)}"`;
}

function showPairs(pairs: Iterable<[Buffer, Buffer]>): string[] {
  return [...pairs].map(([k, v]) => `${showBytes(k)} = ${showBytes(v)}`);
}

function showRange(start: Uint8Array | undefined, end: Uint8Array | undefined, reverse: boolean): string {
  const bound = (b: Uint8Array | undefined) => (b ? `"${showBytes(b)}"` : '∞');
  return `[${bound(start)}, ${bound(end)})${reverse ? ' reverse' : ''}`;
}

/** One randomized run against one store directory. */
class ModelRun {
  readonly #t: Reporter;
  readonly #rng: Prng;
  readonly #dir: string;
  readonly #backend: Backend;
  readonly #model = new MvccModel();
  #store!: MvccStore;
  #op = 0;
  #ops = 0;
  /** Every write at or below this version has been applied (a drain or reopen happened after it). */
  #drainedLatest = 0n;
  #undrained = false;
  #lastRawVersion: bigint | undefined;
  #jumpDone = false;
  readonly #written: bigint[] = [];
  readonly #touched = new Map<string, Map<string, Buffer>>(STORES.map((s) => [s, new Map()]));
  readonly #reported = new Set<string>();
  comparisons = 0;
  mismatches = 0;

  constructor(t: Reporter, backend: Backend, seed: number, dir: string) {
    this.#t = t;
    this.#backend = backend;
    this.#rng = new Prng(seed);
    this.#dir = dir;
  }

  async run(profile: RunProfile): Promise<void> {
    this.#store = await MvccStore.open(this.#dir, { backend: this.#backend, asyncWriteBuffer: 8 });
    this.#ops = profile.ops;
    const reopenEvery = Math.floor(profile.ops / (profile.reopens + 1));
    for (this.#op = 1; this.#op <= profile.ops; this.#op++) {
      if (this.#op % reopenEvery === 0) {
        await this.#reopen();
        continue;
      }
      if (this.#rng.chance(profile.hugeBlockChance)) {
        await this.#writeHugeBlock();
        continue;
      }
      const roll = this.#rng.next();
      if (roll < 0.34) await this.#writeBlocks();
      else if (roll < 0.36) await this.#writeEmptyBlock();
      else if (roll < 0.37) await this.#writeBulkBlock();
      else if (roll < 0.66) await this.#pointRead();
      else if (roll < 0.91) await this.#iterate();
      else if (roll < 0.925) await this.#prune();
      else if (roll < 0.935) await this.#checkRawEntries();
      else if (roll < 0.94) await this.#store.compact();
      else await this.#checkVersionMarkers();
    }
    await this.#store.close();
  }

  // ---- comparison -------------------------------------------------------------------------

  #versionClass(version: bigint): string {
    if (version < this.#model.earliest) return 'below-earliest';
    if (version === 0n) return 'version-0';
    if (version > this.#model.latest) return 'above-latest';
    return 'in-range';
  }

  /** Compares one answer; the first mismatch of each kind becomes a failing assertion with a diff. */
  #expect(kind: string, version: bigint | undefined, actual: Outcome, expected: unknown, detail: string): void {
    this.comparisons++;
    const got = actual.ok ? actual.value : actual.error;
    if (actual.ok && isDeepStrictEqual(got, expected)) return;
    this.mismatches++;
    const signature = version === undefined ? kind : `${kind} @ ${this.#versionClass(version)}`;
    if (this.#reported.has(signature)) return;
    this.#reported.add(signature);
    const [found, wanted] = briefDifference(got, expected);
    this.#t.same(found, wanted, `${this.#backend} ${signature}: ${detail} (seed ${this.#rng.seed}, operation ${this.#op})`, {
      earliest: String(this.#model.earliest),
      latest: String(this.#model.latest),
    });
  }

  // ---- choices ------------------------------------------------------------------------------

  /** Small versions go in as a number or a bigint at random: the API takes both. */
  #api(version: bigint): Version {
    if (version > BigInt(Number.MAX_SAFE_INTEGER) || this.#rng.chance(0.25)) return version;
    return Number(version);
  }

  #randomBelow(bound: bigint): bigint {
    if (bound <= 0n) return 0n;
    return BigInt(Math.floor(this.#rng.next() * Number(bound))) % bound;
  }

  #nextVersion(): bigint {
    const last = this.#lastRawVersion;
    if (last === undefined) return this.#rng.chance(0.5) ? 0n : 1n;
    // Genesis at 0 then block 1 is how a chain starts: both are stored at version 1.
    if (last === 0n) return this.#rng.chance(0.5) ? 1n : 2n;
    if (!this.#jumpDone && this.#op > this.#ops * 0.75) {
      // Versions above 2^53 - 1 travel as bigints; make the second part of the run use them.
      this.#jumpDone = true;
      return 2n ** 62n + this.#randomBelow(1_000_000n);
    }
    const roll = this.#rng.next();
    const gap = roll < 0.7 ? 1 : roll < 0.96 ? this.#rng.range(2, 5) : this.#rng.range(1_000, 1_000_000);
    return last + BigInt(gap);
  }

  /** A read version: 0, around earliest, around written versions, latest, above latest, 2^64 - 1. */
  #readVersion(top: bigint, allowAbove: boolean): bigint {
    const { earliest } = this.#model;
    const roll = this.#rng.int(10);
    if (roll === 0) return 0n;
    if (roll === 1) return earliest > 0n ? earliest - 1n : 0n;
    if (roll === 2) return earliest <= top ? earliest : top;
    if (roll === 3) return top;
    if (roll === 4 && allowAbove) return this.#rng.chance(0.7) ? top + 1n : MAX_VERSION;
    const candidates = this.#written.filter((v) => v <= top);
    if (roll <= 7 && candidates.length > 0) {
      const v = this.#rng.pick(candidates) + BigInt(this.#rng.range(-1, 1));
      return v < 0n ? 0n : v > top ? top : v;
    }
    return this.#randomBelow(top + 1n);
  }

  /**
   * Drains before most reads. Otherwise reads stay at or below the drained version: blocks
   * still in the write buffer are all above it, so the answer is fixed even mid-write.
   */
  async #readTop(): Promise<{ top: bigint; allowAbove: boolean }> {
    if (this.#undrained && this.#rng.chance(0.7)) await this.#drain();
    return this.#undrained ? { top: this.#drainedLatest, allowAbove: false } : { top: this.#model.latest, allowAbove: true };
  }

  #readKey(): Buffer {
    const roll = this.#rng.int(10);
    if (roll < 8) return this.#rng.pick(KEYS);
    if (roll === 8) return this.#rng.pick(FILLER_KEYS);
    return this.#rng.bytes(this.#rng.range(1, 3));
  }

  #bound(): Buffer | undefined {
    const roll = this.#rng.int(10);
    if (roll < 3) return undefined;
    if (roll < 8) return this.#rng.pick(KEYS);
    if (roll === 8) return this.#rng.pick(FILLER_KEYS);
    return this.#rng.bytes(this.#rng.range(1, 3));
  }

  #value(): Buffer {
    return this.#rng.bytes(this.#rng.int(13)); // empty values included: they are values, not deletes
  }

  // ---- operations -------------------------------------------------------------------------

  async #drain(): Promise<void> {
    await this.#store.drain();
    this.#drainedLatest = this.#model.latest;
    this.#undrained = false;
  }

  async #apply(version: bigint, changesets: NamedChangeset[]): Promise<Outcome> {
    const outcome = await attempt(() => this.#store.applyChangesets(this.#api(version), changesets));
    this.#record(version, changesets);
    return outcome;
  }

  #record(version: bigint, changesets: NamedChangeset[]): void {
    this.#model.apply(version, changesets.map(({ name, pairs }) => ({ name, pairs: pairs as ModelPair[] })));
    for (const { name, pairs } of changesets) {
      const touched = this.#touched.get(name);
      for (const { key } of pairs) touched?.set(Buffer.from(key).toString('latin1'), Buffer.from(key));
    }
    this.#lastRawVersion = version;
    this.#written.push(storedVersion(version));
    this.#undrained = true;
  }

  #randomBlock(): NamedChangeset[] {
    return this.#rng.sample(STORES, this.#rng.range(1, 3)).map((name) => {
      if (this.#rng.chance(0.05)) return { name, pairs: [] };
      const keys = this.#rng.sample(KEYS, this.#rng.range(1, 6));
      // Now and then a key twice in one changeset: the last write of a block wins.
      if (this.#rng.chance(0.03)) keys.push(this.#rng.pick(keys));
      return { name, pairs: keys.map((key) => ({ key, value: this.#rng.chance(0.3) ? null : this.#value() })) };
    });
  }

  /** One block, or a burst of blocks submitted without waiting in between. */
  async #writeBlocks(): Promise<void> {
    const count = this.#rng.chance(0.2) ? this.#rng.range(2, 4) : 1;
    const pending: Array<Promise<Outcome>> = [];
    const versions: bigint[] = [];
    for (let i = 0; i < count; i++) {
      const version = this.#nextVersion();
      const block = this.#randomBlock();
      versions.push(version);
      pending.push(attempt(() => this.#store.applyChangesets(this.#api(version), block)));
      this.#record(version, block);
    }
    const outcomes = await Promise.all(pending);
    outcomes.forEach((outcome, i) => this.#expect('applyChangesets', undefined, outcome, undefined, `block at version ${versions[i]}`));
  }

  async #writeEmptyBlock(): Promise<void> {
    const version = this.#nextVersion();
    this.#expect('applyChangesets', undefined, await this.#apply(version, []), undefined, `empty block at version ${version}`);
  }

  /** A block above the ingest threshold that also rewrites or deletes some of the small keys. */
  async #writeHugeBlock(): Promise<void> {
    const version = this.#nextVersion();
    const [name, other] = this.#rng.sample(STORES, 2) as [string, string];
    const pairs = [...HUGE_KEYS, ...this.#rng.sample(KEYS, this.#rng.range(1, 6))].map((key) => ({
      key,
      value: this.#rng.chance(0.1) ? null : this.#rng.bytes(this.#rng.int(9)),
    }));
    const block = [
      { name, pairs },
      { name: other, pairs: this.#rng.sample(KEYS, 3).map((key) => ({ key, value: this.#value() })) },
    ];
    this.#expect('applyChangesets', undefined, await this.#apply(version, block), undefined, `huge block at version ${version}`);
  }

  async #writeBulkBlock(): Promise<void> {
    const version = this.#nextVersion();
    const name = this.#rng.pick(STORES);
    const keys = this.#rng.sample(FILLER_KEYS, this.#rng.range(60, 250));
    const block = [{ name, pairs: keys.map((key) => ({ key, value: this.#rng.chance(0.15) ? null : this.#value() })) }];
    this.#expect('applyChangesets', undefined, await this.#apply(version, block), undefined, `bulk block at version ${version}`);
  }

  async #pointRead(): Promise<void> {
    const { top, allowAbove } = await this.#readTop();
    const store = this.#rng.pick(STORES);
    const version = this.#readVersion(top, allowAbove);
    const at = `${store} @ ${version}`;
    const kind = this.#rng.int(3);
    if (kind === 0) {
      const key = this.#readKey();
      const actual = await attempt(() => showValue(this.#store.get(store, this.#api(version), key)));
      this.#expect('get', version, actual, showValue(this.#model.get(store, version, key)), `get ${at} "${showBytes(key)}"`);
    } else if (kind === 1) {
      const key = this.#readKey();
      const actual = await attempt(() => this.#store.has(store, this.#api(version), key));
      this.#expect('has', version, actual, this.#model.get(store, version, key) !== undefined, `has ${at} "${showBytes(key)}"`);
    } else {
      const keys = Array.from({ length: this.#rng.range(1, 8) }, () => this.#readKey());
      const actual = await this.#getMany(store, version, keys);
      const expected = keys.map((key) => showValue(this.#model.get(store, version, key)));
      this.#expect('getMany', version, actual, expected, `getMany ${at} [${keys.map((k) => `"${showBytes(k)}"`).join(', ')}]`);
    }
  }

  async #iterate(): Promise<void> {
    const { top, allowAbove } = await this.#readTop();
    const store = this.#rng.pick(STORES);
    const version = this.#readVersion(top, allowAbove);
    let start = this.#bound();
    let end = this.#bound();
    if (start && end && Buffer.compare(start, end) > 0) [start, end] = [end, start];
    const reverse = this.#rng.chance(0.5);
    const expected = showPairs(this.#model.iterate(store, version, start, end, reverse));
    // Sometimes stop early: `break` closes the native iterator through return().
    const limit = this.#rng.chance(0.2) ? this.#rng.int(expected.length + 1) : Infinity;
    const actual = await attempt(() => {
      const seen: Array<[Buffer, Buffer]> = [];
      if (limit === 0) return showPairs(seen);
      for (const pair of this.#store.iterator(store, this.#api(version), { start, end, reverse })) {
        seen.push(pair);
        if (seen.length >= limit) break;
      }
      return showPairs(seen);
    });
    const kind = reverse ? 'reverse iterator' : 'iterator';
    this.#expect(kind, version, actual, expected.slice(0, limit), `${kind} ${store} @ ${version} ${showRange(start, end, reverse)}`);
  }

  /** Prunes at or below the drained version (pending blocks, all above it, keep writing meanwhile). */
  async #prune(): Promise<void> {
    if (this.#drainedLatest === 0n) await this.#drain();
    const top = this.#drainedLatest;
    const { earliest } = this.#model;
    const roll = this.#rng.int(20);
    let height: bigint;
    if (roll === 0) height = 0n;
    else if (roll <= 2 && earliest > 1n) height = this.#randomBelow(earliest - 1n); // below an earlier prune
    else if (roll <= 4 && earliest > 0n) height = earliest - 1n; // the same height again
    else if (roll <= 7) height = top;
    else height = earliest + this.#randomBelow(top >= earliest ? top - earliest + 1n : 1n);
    if (height > top) height = top;
    const expectedDropped = this.#model.prune(height);
    const actual = await attempt(async () => (await this.#store.prune(this.#api(height))).versionsDeleted);
    // Named apart so that a failure of one kind of prune does not hide the other's.
    const kind = height + 1n < earliest ? 'prune below an earlier prune' : 'prune';
    this.#expect(kind, undefined, actual, expectedDropped, `prune(${height}) versionsDeleted`);
    this.#expect('earliestVersion after prune', undefined, await attempt(() => BigInt(this.#store.earliestVersion())), this.#model.earliest, `after prune(${height})`);
    // Below the new floor nothing is readable; at and above it every answer is unchanged.
    const { earliest: floor } = this.#model;
    const versions = [floor > 0n ? floor - 1n : 0n, floor, top].filter((v, i, all) => all.indexOf(v) === i && v <= top);
    for (const version of versions) await this.#sweep(version, `after prune(${height})`);
  }

  /**
   * getMany's values, holes read as undefined. That the array has an entry for every key (no
   * holes, which map/forEach/in skip) is checked on its own, so that it cannot mask a wrong value.
   */
  async #getMany(store: string, version: bigint, keys: Buffer[]): Promise<Outcome> {
    let result: Array<Buffer | undefined> = [];
    const outcome = await attempt(() => {
      result = this.#store.getMany(store, this.#api(version), keys);
      return Array.from(result, showValue);
    });
    if (outcome.ok) {
      const entries = { ok: true, value: result.length - Object.keys(result).length } as const;
      this.#expect('getMany holes', undefined, entries, 0, `array slots without an entry in getMany ${store} @ ${version}`);
    }
    return outcome;
  }

  /** Every key ever written, in every store, read at `version` with one getMany per store. */
  async #sweep(version: bigint, why: string): Promise<void> {
    for (const store of STORES) {
      const keys = [...(this.#touched.get(store)?.values() ?? [])];
      if (keys.length === 0) continue;
      const actual = await this.#getMany(store, version, keys);
      const expected = keys.map((key) => showValue(this.#model.get(store, version, key)));
      this.#expect('sweep', version, actual, expected, `every key of ${store} @ ${version} ${why}`);
    }
  }

  async #checkRawEntries(): Promise<void> {
    await this.#drain();
    const actual = await attempt(() =>
      [...this.#store.rawEntries()].map((e) => `${e.store} "${showBytes(e.key)}" @${BigInt(e.version)} = "${showBytes(e.value)}"`),
    );
    const expected = this.#model.rawEntries(this.#store.backend === 'rocksdb').map((e) => `${e.store} "${showBytes(e.key)}" @${e.version} = "${showBytes(e.value)}"`);
    this.#expect('rawEntries', undefined, actual, expected, 'every stored version');
  }

  async #checkVersionMarkers(): Promise<void> {
    await this.#drain();
    this.#expect('latestVersion', undefined, await attempt(() => BigInt(this.#store.latestVersion())), this.#model.latest, 'after drain');
    this.#expect('earliestVersion', undefined, await attempt(() => BigInt(this.#store.earliestVersion())), this.#model.earliest, 'after drain');
  }

  /** Closes without draining first (close must drain) and reopens with another write buffer. */
  async #reopen(): Promise<void> {
    await this.#store.close();
    const asyncWriteBuffer = this.#rng.pick([0, 1, 8, 100]);
    this.#store = await MvccStore.open(this.#dir, { backend: this.#backend, asyncWriteBuffer });
    this.#drainedLatest = this.#model.latest;
    this.#undrained = false;
    const why = `after reopen with asyncWriteBuffer ${asyncWriteBuffer}`;
    this.#expect('latestVersion after reopen', undefined, await attempt(() => BigInt(this.#store.latestVersion())), this.#model.latest, why);
    this.#expect('earliestVersion after reopen', undefined, await attempt(() => BigInt(this.#store.earliestVersion())), this.#model.earliest, why);
    const { earliest, latest } = this.#model;
    for (const version of [earliest > 0n ? earliest - 1n : 0n, earliest, latest]) await this.#sweep(version, why);
    await this.#checkRawEntries();
  }
}

async function runAgainstModel(t: Test, backend: Backend, what: string, profile: RunProfile): Promise<void> {
  const seed = seedFromEnv('STRATA_MODEL_SEED');
  await t.test(`${backend}: ${what} agree with the model (seed ${seed}; replay with STRATA_MODEL_SEED=${seed})`, async (t) => {
    const run = new ModelRun(t, backend, seed, t.testdir());
    await run.run(profile);
    t.ok(run.comparisons > profile.ops / 2, `compared ${run.comparisons} answers with the model`);
    t.equal(run.mismatches, 0, `every answer agreed with the model (seed ${seed})`);
  });
}

for (const backend of BACKENDS) {
  void runAgainstModel(t, backend, `${OPS} random operations`, { ops: OPS, reopens: 5, hugeBlockChance: 0 });
  void runAgainstModel(t, backend, `${Math.round(OPS / 20)} operations mixed with blocks above the SST-ingest threshold`, {
    ops: Math.round(OPS / 20),
    reopens: 2,
    hugeBlockChance: 0.012,
  });
}
