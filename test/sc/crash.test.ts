/**
 * kill -9 of a committing node: a child process commits blocks through CommitStore (memiavl +
 * FlatKV, snapshots every few versions in the background) and prints each acknowledged app
 * hash; the test SIGKILLs it, reopens the directory and checks that the store is at the last
 * acknowledged version (or the one after, if the kill fell between the commit and its print)
 * with exactly the app hash a never-killed reference store has at that version, and that no
 * interrupted snapshot (`*-tmp`) survives the reopen.
 *
 * Two kinds of rounds, 20 each: kills at random moments (mostly inside a commit), and kills
 * a few milliseconds after a snapshot version was acknowledged, while that snapshot is being
 * written (the test counts how often a `snapshot-*-tmp` directory was caught on disk).
 * Delays come from a seeded PRNG; replay with STRATA_SC_CRASH_SEED=<seed>.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CommitStore, memiavlDir } from '../../src/store/index.js';
import { Prng, seedFromEnv } from '../helpers/prng.js';
import { scBlock } from './fixtures/sc-workload.js';

const KILLS = Number(process.env.STRATA_SC_KILLS ?? 20);
const INTERVAL = 4;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./fixtures/sc-writer.ts', import.meta.url));

interface Run {
  acked: Map<number, string>;
  snapshotTmpSeen: boolean;
  stderr: string;
}

/** Runs the writer and kills it `delayMs` after the first ack of a version matching `when`. */
async function runAndKill(dir: string, when: (version: number) => boolean, delayMs: number): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, String(INTERVAL)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { acked: new Map(), snapshotTmpSeen: false, stderr: '' };
  let partial = '';
  let trigger: () => void = () => {};
  const triggered = new Promise<void>((resolve) => (trigger = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^ack (\d+) ([0-9a-f]{64})$/.exec(line);
      if (!m) continue;
      const version = Number(m[1]);
      run.acked.set(version, m[2]!);
      if (when(version)) trigger();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const ended = await Promise.race([triggered.then(() => false), exited.then(() => true), sleep(60_000, undefined, { ref: false }).then(() => true)]);
  if (ended) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`the writer stopped before the kill point: ${run.stderr}`);
  }
  await sleep(delayMs);
  child.kill('SIGKILL');
  await exited;
  run.snapshotTmpSeen = readdirSync(memiavlDir(dir)).some((n) => n.startsWith('snapshot-') && n.endsWith('-tmp'));
  return run;
}

/** A never-killed store that follows the same blocks, for the expected app hash at any version. */
class Reference {
  private constructor(private readonly store: CommitStore, private readonly hashes: Map<number, string>) {}
  static async open(dir: string): Promise<Reference> {
    return new Reference(await CommitStore.open(dir, { snapshotInterval: 0 }), new Map());
  }
  async hashAt(version: number): Promise<string> {
    while (this.store.version() < version) {
      this.store.applyChangesets(scBlock(this.store.version() + 1));
      const info = await this.store.commit();
      this.hashes.set(info.version, Buffer.from(info.appHash).toString('hex'));
    }
    return this.hashes.get(version) ?? '';
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

t.test('kill -9 during commits and during snapshot writing never loses or corrupts a commit', async (t) => {
  const seed = seedFromEnv('STRATA_SC_CRASH_SEED');
  t.comment(`seed ${seed} (STRATA_SC_CRASH_SEED=${seed} replays it)`);
  const rng = new Prng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'strata-sc-crash-'));
  const refDir = mkdtempSync(join(tmpdir(), 'strata-sc-ref-'));
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(refDir, { recursive: true, force: true });
  });
  const reference = await Reference.open(refDir);
  let committed = 0;
  let tmpCaught = 0;
  for (let round = 0; round < 2 * KILLS; round++) {
    const duringSnapshot = round % 2 === 1;
    const start = committed;
    const run = duringSnapshot
      ? await runAndKill(dir, (v) => v > start && v % INTERVAL === 0, rng.int(25))
      : await runAndKill(dir, (v) => v > start, rng.range(5, 120));
    if (run.snapshotTmpSeen) tmpCaught++;
    const lastAck = Math.max(...run.acked.keys());

    const store = await CommitStore.open(dir, { snapshotInterval: 0 });
    const info = store.lastCommitInfo();
    const label = `round ${round} (${duringSnapshot ? 'snapshot' : 'commit'}), last ack ${lastAck}`;
    t.ok(info.version === lastAck || info.version === lastAck + 1, `${label}: reopened at ${info.version}`);
    const hash = Buffer.from(info.appHash).toString('hex');
    if (run.acked.has(info.version)) t.equal(hash, run.acked.get(info.version), `${label}: the acknowledged app hash`);
    t.equal(hash, await reference.hashAt(info.version), `${label}: the reference app hash`);
    t.notOk(readdirSync(memiavlDir(dir)).some((n) => n.endsWith('-tmp')), `${label}: no interrupted snapshot is left`);
    await store.close();
    committed = info.version;
  }
  t.comment(`${tmpCaught} of ${KILLS} snapshot-round kills caught a snapshot being written`);
  t.ok(tmpCaught > 0, 'some kills landed while a snapshot was being written');
  t.ok(existsSync(join(memiavlDir(dir), 'current')), 'snapshots were published');
  await reference.close();
});
