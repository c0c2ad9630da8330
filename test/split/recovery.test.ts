/**
 * Crash recovery of a split node (digest §7; spec check list): a child process writes blocks of
 * both "bank" and "evm" through a CompositeStateStore and prints `ack <version>` as each is
 * acknowledged; the test SIGKILLs it at a random moment, reopens the composite in-process and
 * checks that the start passes every safety check, that both sides are at the same latest
 * version, that every acknowledged block is whole on both sides (bank through the Cosmos SS,
 * evm through the EVM SS), and that nothing of the next block is visible. The next child
 * carries on from latest + 1 on the same directory. Rounds alternate between a data directory
 * with one EVM DB and one with five.
 *
 * Deterministic cases pin crash points exactly: between the Cosmos half and the EVM half of a
 * block (on a fresh node's first block and on a later one), an acknowledged first block the EVM
 * SS logged but had not applied, and kills inside a fresh node's first open.
 *
 * Kill delays come from a seeded PRNG; replay with STRATA_SPLIT_CRASH_SEED=<seed>.
 */
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { memoryLogger } from '../../src/log/logger.js';
import {
  CompositeStateStore,
  EvmStateStore,
  MvccStore,
  SplitSafetyCheckError,
  cosmosStoreDir,
  encodeChangelogEntry,
  evmStoreDir,
  type Backend,
  type KVPair,
  type StateStore,
} from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { Prng, seedFromEnv } from '../helpers/prng.js';
import { EVM_SUB_DBS, expectedSubDb, ssConfig } from './fixtures/helpers.js';
import { BANK_COUNTER, BANK_TOGGLE, EVM_COUNTER, EVM_TOGGLE, splitBlock, splitBlockPairs } from './fixtures/split-workload.js';

const KILLS = Number(process.env.STRATA_SPLIT_KILLS ?? 20);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/split-writer.ts', import.meta.url));

interface ChildRun {
  lines: string[];
  acked: number[];
  stderr: string;
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

type WriterMode = 'write' | 'cosmos-half';

/**
 * Runs the writer. With `killAfterMs`, SIGKILLs it that long after its first ack (or after
 * spawning, when `fromSpawn`); without, waits for it to end on its own (cosmos-half kills itself).
 */
async function runWriter(
  mode: WriterMode,
  dir: string,
  backend: Backend,
  separateDbs: boolean,
  version: number,
  kill?: { afterMs: number; fromSpawn: boolean },
): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, mode, dir, backend, separateDbs ? '1' : '0', String(version)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: ChildRun = { lines: [], acked: [], stderr: '', exit: { code: null, signal: null } };
  let partial = '';
  let onFirstAck: () => void = () => {};
  const firstAck = new Promise<void>((resolve) => (onFirstAck = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      run.lines.push(line);
      const ack = /^ack (\d+)$/.exec(line);
      if (ack) {
        run.acked.push(Number(ack[1]));
        onFirstAck();
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  const exited = new Promise<ChildRun['exit']>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  if (kill) {
    if (!kill.fromSpawn) {
      const noAck = await Promise.race([firstAck.then(() => false), exited.then(() => true), sleep(30_000, undefined, { ref: false }).then(() => true)]);
      if (noAck) {
        child.kill('SIGKILL');
        run.exit = await exited;
        throw new Error(`the writer never acknowledged a block (exit ${run.exit.code}/${run.exit.signal}): ${run.stderr}`);
      }
    }
    await sleep(kill.afterMs);
    child.kill('SIGKILL');
  }
  run.exit = await exited;
  return run;
}

/** Opens the split composite; a refused start is reported with its check number. */
async function reopen(dir: string, backend: Backend, separateDbs: boolean): Promise<CompositeStateStore> {
  try {
    return await CompositeStateStore.open(dir, ssConfig(backend, true, separateDbs), memoryLogger().logger);
  } catch (error) {
    if (error instanceof SplitSafetyCheckError) throw new Error(`the reopen was refused by check ${error.check}: ${error.message}`);
    throw error;
  }
}

function describe(value: Buffer | undefined | null): string {
  return value === undefined || value === null ? '(absent)' : JSON.stringify(value.toString('latin1').slice(0, 40));
}

/** Pairs of `store` that do not read back as written at `version`. */
function wrongPairs(side: StateStore, store: string, version: number, pairs: readonly KVPair[]): string[] {
  const found = side.getMany(store, version, pairs.map((p) => p.key));
  const wrong: string[] = [];
  pairs.forEach((pair, i) => {
    const got = found[i];
    const ok = pair.value === null ? got === undefined : got !== undefined && got.equals(pair.value);
    if (!ok) wrong.push(`${Buffer.from(pair.key).toString('hex')} = ${describe(got)}, wrote ${describe(pair.value === null ? null : Buffer.from(pair.value))}`);
  });
  return wrong;
}

/** Blocks of `versions` not whole on both sides: bank on the Cosmos SS, evm on the EVM SS. */
function incompleteBlocks(store: CompositeStateStore, versions: Iterable<number>): string[] {
  const problems: string[] = [];
  const evm = store.evm;
  if (!evm) return ['the EVM SS is not open'];
  for (const version of versions) {
    const { bank, evm: evmPairs } = splitBlockPairs(version);
    for (const [side, name, pairs] of [[store.cosmos, 'bank', bank], [evm, 'evm', evmPairs]] as const) {
      const wrong = wrongPairs(side, name, version, pairs);
      if (wrong.length > 0) problems.push(`version ${version} ${name}: ${wrong.length}/${pairs.length} wrong, e.g. ${wrong[0]}`);
    }
  }
  return problems;
}

/** What of block latest + 1 is visible at latest + 1 (on either side), and "evm" data that leaked into the Cosmos SS. */
function leaks(store: CompositeStateStore, latest: number): string[] {
  const problems: string[] = [];
  const evm = store.evm;
  if (!evm) return ['the EVM SS is not open'];
  const next = splitBlockPairs(latest + 1);
  const shared = new Set([BANK_COUNTER, BANK_TOGGLE, EVM_COUNTER, EVM_TOGGLE].map((k) => k.toString('hex')));
  for (const [side, name, pairs] of [[store.cosmos, 'bank', next.bank], [evm, 'evm', next.evm]] as const) {
    const unique = pairs.filter((p) => !shared.has(Buffer.from(p.key).toString('hex')));
    const visible = side.getMany(name, latest + 1, unique.map((p) => p.key)).filter((v) => v !== undefined).length;
    if (visible > 0) problems.push(`${visible}/${unique.length} ${name} keys of version ${latest + 1} are visible`);
  }
  const counters: Array<[StateStore, string, Buffer]> = [[store.cosmos, 'bank', BANK_COUNTER], [evm, 'evm', EVM_COUNTER]];
  for (const [side, name, key] of counters) {
    const value = side.get(name, latest + 1, key)?.toString();
    if (value !== (latest === 0 ? undefined : String(latest))) problems.push(`${name} counter reads ${value ?? '(absent)'} above latest ${latest}`);
  }
  // The Cosmos SS logs "evm" changesets without applying them, in replay too.
  const inCosmos = store.cosmos.getMany('evm', latest, [EVM_COUNTER, ...splitBlockPairs(latest).evm.slice(0, 50).map((p) => p.key)]);
  if (inCosmos.some((v) => v !== undefined)) problems.push('the Cosmos SS holds "evm" data');
  return problems;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

for (const backend of BACKENDS) {
  const seed = seedFromEnv('STRATA_SPLIT_CRASH_SEED');
  t.test(`${backend}: ${KILLS} kill -9 rounds of a split node keep both sides whole and level (seed ${seed})`, async (t) => {
    const rng = new Prng(seed);
    const root = t.testdir();
    const nodes = [false, true].map((separateDbs) => ({ separateDbs, dir: join(root, separateDbs ? 'separate' : 'unified'), latest: 0, rounds: 0 }));
    let kills = 0;
    for (let round = 1; round <= KILLS; round++) {
      const node = nodes[round % 2] as (typeof nodes)[number];
      node.rounds++;
      const first = node.latest + 1;
      // A fresh node's first round is killed only after acks: kills inside its first open and
      // between the two sides of its first block are pinned by the deterministic tests below
      // (and fail today, see there), so random timing must not stumble into them here. Later,
      // every third round of a node is killed counting from spawn, which lands in open and
      // recovery, or early in the writing.
      const fromSpawn = node.rounds > 1 && node.rounds % 3 === 0;
      const afterMs = fromSpawn ? rng.range(200, 1500) : node.rounds === 1 ? rng.range(50, 300) : rng.range(0, 400);
      const what = `round ${round} (${node.separateDbs ? 'five EVM DBs' : 'one EVM DB'}, killed ${afterMs} ms after ${fromSpawn ? 'spawn' : 'the first ack'})`;
      const child = await runWriter('write', node.dir, backend, node.separateDbs, first, { afterMs, fromSpawn });
      t.equal(child.exit.signal, 'SIGKILL', `${what}: the writer died of SIGKILL, not on its own: ${child.stderr}`);
      if (child.exit.signal === 'SIGKILL') kills++;
      const highestAcked = child.acked.length > 0 ? Math.max(...child.acked) : first - 1;
      t.same(child.acked, range(first, highestAcked), `${what}: acks came in order from ${first}`);

      const store = await reopen(node.dir, backend, node.separateDbs);
      const cosmosLatest = Number(store.cosmos.latestVersion());
      const evmLatest = Number(store.evm?.latestVersion() ?? -1);
      t.equal(evmLatest, cosmosLatest, `${what}: the EVM SS and the Cosmos SS are at the same latest version`);
      t.ok(cosmosLatest >= highestAcked, `${what}: latest ${cosmosLatest} covers the highest ack ${highestAcked} (${child.acked.length} acks)`);
      t.same(incompleteBlocks(store, range(first, cosmosLatest)), [], `${what}: versions ${first}..${cosmosLatest} are whole on both sides`);
      // Older blocks were checked when new; a few are checked again against later replays.
      const older = rng.sample(range(1, first - 1), 3).sort((a, b) => a - b);
      t.same(incompleteBlocks(store, older), [], `${what}: older versions ${older.join(', ') || '(none)'} are still whole`);
      t.same(leaks(store, cosmosLatest), [], `${what}: nothing of version ${cosmosLatest + 1} is visible, no "evm" data in the Cosmos SS`);
      await store.close();
      node.latest = cosmosLatest;
    }
    t.equal(kills, KILLS, `all ${KILLS} writers were killed mid-run`);

    for (const node of nodes) {
      const store = await reopen(node.dir, backend, node.separateDbs);
      t.equal(Number(store.latestVersion()), node.latest, `${node.dir.slice(root.length + 1)}: a clean reopen finds latest ${node.latest}`);
      t.same(incompleteBlocks(store, range(1, node.latest)), [], `${node.dir.slice(root.length + 1)}: every version 1..${node.latest} is whole at the end`);
      await store.close();
    }
  });
}

/** A changelog frame as the native changelog writes it: u32 length | u32 crc32 | payload, little-endian. */
function frame(payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

/** The one segment of a fresh store's changelog. */
function onlySegment(storeDir: string): string {
  const names = readdirSync(join(storeDir, 'changelog')).filter((n) => /^\d{20}$/.test(n));
  if (names.length !== 1) throw new Error(`expected one changelog segment in ${storeDir}, found ${names.length}`);
  return join(storeDir, 'changelog', names[0] as string);
}

async function expectBothSidesAt(t: Test, dir: string, backend: Backend, separateDbs: boolean, version: number): Promise<void> {
  let store: CompositeStateStore;
  try {
    store = await reopen(dir, backend, separateDbs);
  } catch (error) {
    t.fail(`the node restarts after the crash: ${(error as Error).message}`);
    return;
  }
  t.pass('the node restarts after the crash');
  t.equal(Number(store.cosmos.latestVersion()), version, `the Cosmos SS is at ${version}`);
  t.equal(Number(store.evm?.latestVersion() ?? -1), version, `the EVM SS caught up to ${version}`);
  t.same(incompleteBlocks(store, range(1, version)), [], `versions 1..${version} are whole on both sides`);
  await store.close();
}

for (const backend of BACKENDS) {
  for (const separateDbs of [false, true]) {
    const layout = `${backend}, separateDbs=${separateDbs}`;

    t.test(`${layout}: killed between the Cosmos half and the EVM half of block 6, the node recovers`, async (t) => {
      const dir = t.testdir();
      const store = await reopen(dir, backend, separateDbs);
      for (let v = 1; v <= 5; v++) await store.applyChangesets(v, splitBlock(v));
      await store.close();
      const child = await runWriter('cosmos-half', dir, backend, separateDbs, 6);
      t.same([child.lines, child.exit.signal], [['ready 5', 'half 6'], 'SIGKILL'], `the writer logged block 6 on the Cosmos side and died: ${child.stderr}`);
      await expectBothSidesAt(t, dir, backend, separateDbs, 6);
    });

    // The same crash point on a fresh node's first block: the Cosmos SS has applied block 1,
    // the EVM SS has nothing yet, and the Cosmos changelog holds the whole block.
    t.test(`${layout}: killed between the Cosmos half and the EVM half of a fresh node's first block, the node recovers`, async (t) => {
      const dir = t.testdir();
      const child = await runWriter('cosmos-half', dir, backend, separateDbs, 1);
      t.same([child.lines, child.exit.signal], [['ready 0', 'half 1'], 'SIGKILL'], `the writer logged block 1 on the Cosmos side and died: ${child.stderr}`);
      await expectBothSidesAt(t, dir, backend, separateDbs, 1);
    });

    // After applyChangesets(1) resolved both sides have block 1 in their changelogs; a kill
    // before the EVM SS applies it leaves its DB(s) empty. Built by hand, since the gap between
    // the EVM SS logging and applying is too short to hit with a kill: the Cosmos half applied,
    // the EVM half only appended to its changelog(s), framed as the native writer frames it.
    t.test(`${layout}: an acknowledged first block that the EVM SS logged but had not applied survives a crash`, async (t) => {
      const root = t.testdir();
      const dir = join(root, 'node');
      const fresh = await reopen(dir, backend, separateDbs);
      await fresh.close();
      const cosmos = await MvccStore.open(cosmosStoreDir(dir, backend), { backend, logOnlyStores: ['evm'] });
      await cosmos.applyChangesets(1, splitBlock(1));
      await cosmos.close();
      const { evm } = splitBlockPairs(1);
      if (separateDbs) {
        for (const name of EVM_SUB_DBS) {
          const pairs = evm.filter((p) => expectedSubDb(p.key) === name);
          const entry = encodeChangelogEntry(1, pairs.length > 0 ? [{ name: 'evm', pairs }] : []);
          appendFileSync(onlySegment(join(evmStoreDir(dir), name)), frame(entry));
        }
      } else {
        appendFileSync(onlySegment(evmStoreDir(dir)), frame(encodeChangelogEntry(1, [{ name: 'evm', pairs: evm }])));
      }
      // The hand-built state is sound: a copy of the EVM SS opened alone replays block 1 from its own changelog.
      const copy = join(root, 'evm_ss-copy');
      cpSync(evmStoreDir(dir), copy, { recursive: true });
      const alone = await EvmStateStore.open(copy, { backend, separateDbs });
      t.equal(Number(alone.latestVersion()), 1, 'the EVM SS opened alone replays its changelog to version 1');
      t.same(wrongPairs(alone, 'evm', 1, evm), [], 'and then holds all of block 1');
      await alone.close();
      await expectBothSidesAt(t, dir, backend, separateDbs, 1);
    });
  }
}

/**
 * Starts a writer on a fresh data directory and SIGKILLs it as soon as `marker` exists, so the
 * kill lands inside the first open. Tries again (on a wiped directory) until `landed` confirms
 * the kill came before the open finished, at most five times.
 */
async function killDuringFirstOpen(
  dir: string,
  backend: Backend,
  separateDbs: boolean,
  marker: string,
  landed: () => boolean,
): Promise<{ attempts: number; landed: boolean }> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    rmSync(dir, { recursive: true, force: true });
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, 'write', dir, backend, separateDbs ? '1' : '0', '1'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    let ended = false;
    void exited.then(() => (ended = true));
    const deadline = Date.now() + 30_000;
    while (!existsSync(marker) && !ended && Date.now() < deadline) await sleep(0);
    child.kill('SIGKILL');
    await exited;
    if (landed()) return { attempts: attempt, landed: true };
  }
  return { attempts: 5, landed: false };
}

for (const backend of BACKENDS) {
  // A node's very first start creates its DBs; a crash in the middle leaves a DB directory
  // without a RocksDB CURRENT file, or only some of the five EVM sub-DBs. The store opens such
  // directories read-write without complaint (it creates what is missing), so the node must
  // start again. The marker each case waits for is the first file of the DB being created.
  const cases = [
    { name: 'in the Cosmos SS, between its layout marker and its DB', separateDbs: false, control: true, marker: (d: string) => join(cosmosStoreDir(d, backend), 'STRATA_LAYOUT'), unfinished: (d: string) => join(cosmosStoreDir(d, backend), 'CURRENT') },
    { name: 'in the one EVM DB, between its layout marker and its DB', separateDbs: false, control: false, marker: (d: string) => join(evmStoreDir(d), 'STRATA_LAYOUT'), unfinished: (d: string) => join(evmStoreDir(d), 'CURRENT') },
    { name: 'after the nonce sub-DB, before the other four', separateDbs: true, control: false, marker: (d: string) => join(evmStoreDir(d), 'nonce', 'CURRENT'), unfinished: (d: string) => join(evmStoreDir(d), 'codehash', 'CURRENT') },
  ];
  for (const c of cases) {
    t.test(`${backend}, separateDbs=${c.separateDbs}: a fresh split node killed during its first open (${c.name}) starts again`, async (t) => {
      const root = t.testdir();
      const dir = join(root, 'node');
      const kill = await killDuringFirstOpen(dir, backend, c.separateDbs, c.marker(dir), () => existsSync(c.marker(dir)) && !existsSync(c.unfinished(dir)));
      t.ok(kill.landed, `the kill landed inside the first open (attempts: ${kill.attempts})`);
      if (!kill.landed) return;
      if (c.control) {
        // Without the split the same crashed Cosmos SS starts (on a copy: the split start below must see the crash state).
        const copy = join(root, 'copy');
        cpSync(dir, copy, { recursive: true });
        const plain = await CompositeStateStore.open(copy, ssConfig(backend, false, false), memoryLogger().logger);
        t.pass('control: without the split the same crashed directory starts');
        await plain.close();
      }
      let store: CompositeStateStore;
      try {
        store = await reopen(dir, backend, c.separateDbs);
      } catch (error) {
        t.fail(`the node starts again after the crash: ${(error as Error).constructor.name}: ${(error as Error).message}`);
        return;
      }
      t.pass('the node starts again after the crash');
      t.equal(Number(store.latestVersion()), 0, 'with nothing written yet');
      await store.applyChangesets(1, splitBlock(1));
      await store.drain();
      t.same(incompleteBlocks(store, [1]), [], 'and takes its first block on both sides');
      await store.close();
    });
  }
}

