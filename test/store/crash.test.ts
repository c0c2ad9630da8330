/**
 * kill -9 crash test. A child process writes deterministic blocks with an async write buffer
 * and prints `ack <version>` as each is acknowledged; the test kills it with SIGKILL at a
 * random moment, reopens the store and checks that every acknowledged block is there in full,
 * that no block is half-applied, then lets the next child carry on from latest + 1 on the
 * same directory, so later kills land on a store that replayed (or is replaying) its log.
 * Two rounds also tear the changelog tail on purpose before reopening.
 *
 * The kill delays come from a seeded PRNG; replay with STRATA_CRASH_SEED=<seed>.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { MvccStore, type Backend } from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { bytes } from '../helpers/bytes.js';
import { Prng, seedFromEnv } from '../helpers/prng.js';
import { crashPairs } from './fixtures/crash-workload.js';

const KILLS = Number(process.env.STRATA_CRASH_KILLS ?? 20);
/** Rounds (1-based) after whose kill the changelog tail is torn by hand. */
const TORN_ROUNDS = new Set([Math.ceil(KILLS / 3), Math.ceil((2 * KILLS) / 3)]);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));

interface ChildRun {
  /** The latest version the writer found when it opened the store, if it got that far. */
  openedAt: number | undefined;
  acked: number[];
  stderr: string;
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

/**
 * Starts a writer at `first`, kills it with SIGKILL `delayMs` after its first ack (or after
 * spawning when `beforeFirstAck`, which can land while it is still opening and replaying).
 */
async function runAndKill(dir: string, backend: Backend, first: number, delayMs: number, beforeFirstAck: boolean): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, backend, String(first)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acked: number[] = [];
  let openedAt: number | undefined;
  let stdout = '';
  let stderr = '';
  let firstAck: () => void = () => {};
  const gotFirstAck = new Promise<void>((resolve) => (firstAck = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) {
      const ready = /^ready (\d+)$/.exec(line);
      if (ready) openedAt = Number(ready[1]);
      const ack = /^ack (\d+)$/.exec(line);
      if (ack) {
        acked.push(Number(ack[1]));
        firstAck();
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<ChildRun['exit']>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  if (!beforeFirstAck) {
    const early = await Promise.race([gotFirstAck.then(() => false), exited.then(() => true), sleep(30_000, undefined, { ref: false }).then(() => true)]);
    if (early) {
      child.kill('SIGKILL');
      const exit = await exited;
      throw new Error(`writer never acknowledged a block (exit ${exit.code}/${exit.signal}): ${stderr}`);
    }
  }
  await sleep(delayMs);
  child.kill('SIGKILL');
  const exit = await exited;
  return { openedAt, acked, stderr, exit };
}

/** Complete frames (u32 length | u32 crc32 | payload) of a changelog segment, with their versions. */
function changelogFrames(path: string): Array<{ end: number; version: number }> {
  const data = readFileSync(path);
  const frames: Array<{ end: number; version: number }> = [];
  let pos = 0;
  while (pos + 8 <= data.length) {
    const length = data.readUInt32LE(pos);
    const end = pos + 8 + length;
    if (length < 12 || end > data.length || crc32(data.subarray(pos + 8, end)) !== data.readUInt32LE(pos + 4)) break;
    frames.push({ end, version: Number(data.readBigUInt64LE(pos + 8)) });
    pos = end;
  }
  return frames;
}

/** Changelog segment files, oldest first (named by the 20-digit index of their first entry). */
function segments(dir: string): string[] {
  return readdirSync(join(dir, 'changelog'))
    .filter((n) => /^\d{20}$/.test(n))
    .sort()
    .map((n) => join(dir, 'changelog', n));
}

function newestSegment(dir: string): string {
  const newest = segments(dir).pop();
  if (!newest) throw new Error(`no changelog segment in ${dir}`);
  return newest;
}

/**
 * Cuts the newest segment a few bytes into its last complete frame (past any torn bytes the
 * kill left). Returns the version of that frame and of the complete frame before it.
 */
function tearChangelogTail(dir: string, rng: Prng): { tornVersion: number; keptVersion: number } {
  const [newest, previousSegment] = segments(dir).reverse();
  if (!newest) throw new Error(`no changelog segment in ${dir}`);
  const frames = changelogFrames(newest);
  const last = frames.at(-1);
  if (!last) throw new Error(`changelog segment ${newest} has no complete frame to tear`);
  const lastStart = frames.at(-2)?.end ?? 0;
  // The frame before the torn one: in this segment or, just after a rollover, the previous one's last.
  const previous = frames.at(-2) ?? (previousSegment ? changelogFrames(previousSegment).at(-1) : undefined);
  truncateSync(newest, last.end - rng.range(1, Math.min(16, last.end - lastStart - 1)));
  return { tornVersion: last.version, keptVersion: previous?.version ?? 0 };
}

/** Blocks of `versions` that do not read back exactly as written, described for the report. */
function incompleteBlocks(store: MvccStore, versions: Iterable<number>): string[] {
  const problems: string[] = [];
  for (const version of versions) {
    for (const [name, pairs] of crashPairs(version)) {
      const values = store.getMany(name, version, pairs.map((p) => p.key));
      let wrong = 0;
      let example = '';
      pairs.forEach(({ key, value }, i) => {
        const found = values[i];
        const ok = value === null ? found === undefined : found !== undefined && found.equals(value);
        if (!ok) {
          wrong++;
          example ||= `${key} = ${found === undefined ? '(absent)' : found.toString()}, wrote ${value === null ? '(delete)' : value.toString()}`;
        }
      });
      if (wrong > 0) problems.push(`version ${version} ${name}: ${wrong}/${pairs.length} keys wrong, e.g. ${example}`);
    }
  }
  return problems;
}

/** Keys of the block above `latest` that read differently at latest + 1 than at latest: a partly applied block. */
function partlyVisibleNextBlock(store: MvccStore, latest: number): string[] {
  const problems: string[] = [];
  for (const [name, pairs] of crashPairs(latest + 1)) {
    const keys = pairs.map((p) => p.key);
    const atLatest = store.getMany(name, latest, keys);
    const above = store.getMany(name, latest + 1, keys);
    keys.forEach((key, i) => {
      const a = atLatest[i];
      const b = above[i];
      if (a === undefined ? b !== undefined : b === undefined || !a.equals(b)) problems.push(`${name} ${key}`);
    });
  }
  return problems;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

for (const backend of BACKENDS) {
  const seed = seedFromEnv('STRATA_CRASH_SEED');
  t.test(`${backend}: ${KILLS} kill -9 rounds keep every acknowledged block whole (seed ${seed})`, async (t) => {
    const rng = new Prng(seed);
    const dir = t.testdir();
    let latest = 0;
    let kills = 0;
    for (let round = 1; round <= KILLS; round++) {
      const first = latest + 1;
      const beforeFirstAck = round % 5 === 0;
      const delay = beforeFirstAck ? rng.range(50, 700) : rng.range(0, 300);
      const child = await runAndKill(dir, backend, first, delay, beforeFirstAck);
      t.equal(child.exit.signal, 'SIGKILL', `round ${round}: the writer died of SIGKILL, not on its own: ${child.stderr}`);
      if (child.exit.signal === 'SIGKILL') kills++;
      const highestAcked = child.acked.length > 0 ? Math.max(...child.acked) : first - 1;
      t.same(child.acked, range(first, highestAcked), `round ${round}: the writer acknowledged versions in order from ${first}`);
      if (child.openedAt !== undefined) {
        t.equal(child.openedAt, latest, `round ${round}: the writer's own open found latest ${latest}, as the test's did`);
      }

      const torn = TORN_ROUNDS.has(round) ? tearChangelogTail(dir, rng) : undefined;
      const what = `round ${round} (${child.acked.length} acks after ${delay} ms${beforeFirstAck ? ' from spawn' : ''})`;
      let store: MvccStore;
      try {
        store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
      } catch (error) {
        // Later rounds need this store; without it the run ends here.
        t.fail(`${what}: the store opens after the kill${torn ? ` and the tear into version ${torn.tornVersion}` : ''}: ${(error as Error).message}`);
        return;
      }
      const reopened = Number(store.latestVersion());
      if (torn) {
        // Only the torn frame can be lost, and only if it had not been applied yet.
        t.ok(
          reopened >= torn.keptVersion && reopened <= torn.tornVersion,
          `${what}: with the tail torn into version ${torn.tornVersion}, latest ${reopened} is ${torn.keptVersion} or more`,
        );
      } else {
        t.ok(reopened >= highestAcked, `${what}: latest ${reopened} is at least the highest acknowledged version ${highestAcked}`);
      }
      t.equal(BigInt(store.earliestVersion()), 0n, `${what}: nothing was pruned`);
      // This round's blocks in full; older ones were checked when new and are checked again at the end.
      t.same(incompleteBlocks(store, range(first, reopened)), [], `${what}: versions ${first}..${reopened} read back whole`);
      t.same(partlyVisibleNextBlock(store, reopened), [], `${what}: nothing of version ${reopened + 1} is visible`);
      await store.close();
      latest = reopened;
    }
    t.equal(kills, KILLS, `${KILLS} writers were killed mid-run`);

    const store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    t.equal(Number(store.latestVersion()), latest, 'a last clean reopen finds the same latest version');
    t.same(incompleteBlocks(store, range(1, latest)), [], `every version 1..${latest} reads back whole at the end`);
    await store.close();
  });
}

/** One changelog entry, in the format of native/include/strata/changelog_entry.h. */
function encodeEntry(version: bigint, changesets: Array<{ name: string; pairs: Array<{ key: Uint8Array; value: Uint8Array | null }> }>): Buffer {
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(version);
  const parts: Uint8Array[] = [head, u32(changesets.length)];
  for (const { name, pairs } of changesets) {
    parts.push(u32(Buffer.byteLength(name)), Buffer.from(name), u32(pairs.length));
    for (const { key, value } of pairs) {
      parts.push(Buffer.from([value === null ? 1 : 0]), u32(key.length), key);
      if (value !== null) parts.push(u32(value.length), value);
    }
  }
  return Buffer.concat(parts);
}

/** A changelog frame: u32 length | u32 crc32 | payload. */
function frame(payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

for (const backend of BACKENDS) {
  // A crash between logging a block and applying it leaves exactly this on disk: the frame at
  // the changelog's end, the DB one block behind. Writing that state directly makes the crash
  // point exact instead of a matter of timing.
  t.test(`${backend}: an acknowledged block logged but not applied before a crash is replayed`, async (t) => {
    const cases = [
      { name: 'block 2 after genesis at 0', next: 2n },
      // Genesis (0) and block 1 are both stored at version 1, so the DB already holds version 1.
      { name: 'block 1 after genesis at 0', next: 1n },
    ];
    for (const { name, next } of cases) {
      const dir = t.testdir();
      const store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
      await store.applyChangesets(0, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('genesis') }, { key: bytes('b'), value: bytes('genesis') }] }]);
      await store.close();
      const block = [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('block') }, { key: bytes('c'), value: bytes('block') }] }];
      appendFileSync(newestSegment(dir), frame(encodeEntry(next, block)));

      const reopened = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
      t.equal(reopened.latestVersion(), Number(next), `${name}: latest is ${next} after the replay`);
      t.same(
        reopened.getMany('bank', next, [bytes('a'), bytes('b'), bytes('c')]).map((v) => v?.toString()),
        ['block', 'genesis', 'block'],
        `${name}: the logged block is applied on top of genesis`,
      );
      await reopened.close();
    }
  });
}

for (const backend of BACKENDS) {
  // A torn tail can hold a block the DB had already applied (the log and the DB's own WAL are
  // separate files, and either can lose its tail). Repairing the tail must not strand the store.
  t.test(`${backend}: a torn changelog tail whose block was already applied still opens`, async (t) => {
    const dir = t.testdir();
    let store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    for (let version = 1; version <= 3; version++) {
      await store.applyChangesets(version, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes(`v${version}`) }] }]);
    }
    await store.close();
    const torn = tearChangelogTail(dir, new Prng(1));
    t.equal(torn.tornVersion, 3, 'the torn frame holds version 3, which close() applied');

    let reopened: MvccStore | undefined;
    try {
      reopened = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    } catch (error) {
      t.fail(`the store opens after its changelog tail was torn: ${(error as Error).message}`);
      return;
    }
    store = reopened;
    t.equal(store.latestVersion(), 3, 'latest is still 3');
    t.same(store.get('bank', 3, bytes('a')), bytes('v3'), 'version 3 reads back');
    await store.applyChangesets(4, [{ name: 'bank', pairs: [{ key: bytes('a'), value: bytes('v4') }] }]);
    await store.close();
    store = await MvccStore.open(dir, { backend, asyncWriteBuffer: 8 });
    t.same(
      [1, 2, 3, 4].map((version) => store.get('bank', version, bytes('a'))?.toString()),
      ['v1', 'v2', 'v3', 'v4'],
      'blocks written after the repair survive the next reopen, and so do the older ones',
    );
    await store.close();
  });
}
