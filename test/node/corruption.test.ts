/**
 * Following the message of a damaged memiavl changelog: a byte flipped in a synced entry of a
 * stopped node's `data/committer.db/changelog` makes the next start fail with a corruption
 * error naming the segment and the last intact version; the command the message names, run
 * as written, brings the state commitment back to that version with the app hash the block
 * after it carries (computed before the damage), and the node restarts, re-executes the
 * stored blocks above it (checking every app hash against the stored headers) and goes on.
 * Likewise for a byte flipped in a memiavl snapshot: the message names the file and the repair
 * command, which falls back to the older snapshot plus the changelog.
 */
import t, { type Test } from 'tap';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, renderAppToml } from '../../src/config/index.js';
import { initHome, ROOT, startNode } from './fixtures/node-process.js';
import { rpcResult } from './fixtures/rpc-client.js';

/** The first segment of a changelog directory. */
function firstSegment(dir: string): string {
  return join(dir, readdirSync(dir).filter((n) => /^\d{20}$/.test(n)).sort()[0]!);
}

/**
 * Damages the entry of `version` in the changelog of `dir` (the entry of the highest version
 * when `version` is 'last'): `payload` flips its last payload byte, `length` adds one to its
 * length field. Returns the segment path, the version damaged and the byte offset of its frame.
 */
function damageEntry(dir: string, version: number | 'last', how: 'payload' | 'length' = 'payload'): { segment: string; version: number; offset: number } {
  const segment = firstSegment(dir);
  const data = readFileSync(segment);
  let found: { pos: number; len: number; version: number } | undefined;
  for (let pos = 0; pos + 16 <= data.length; ) {
    const len = data.readUInt32LE(pos);
    const v = Number(data.readBigUInt64LE(pos + 8));
    if (version === 'last' || v === version) found = { pos, len, version: v };
    if (v === version) break;
    pos += 8 + len;
  }
  if (found === undefined) throw new Error(`no changelog entry of version ${version} in ${segment}`);
  if (how === 'payload') data[found.pos + 8 + found.len - 1]! ^= 0x01;
  else data.writeUInt32LE(found.len + 1, found.pos);
  writeFileSync(segment, data);
  return { segment, version: found.version, offset: found.pos };
}

/** Runs the `stratad rollback` command a message names in backticks, exactly as written. */
function runNamedRollback(t: Test, message: string, home: string): SpawnSyncReturns<string> {
  const command = /`(stratad rollback[^`]*)`/.exec(message)?.[1];
  t.ok(command, `the message names a command: ${message}`);
  const args = command!.split(/\s+/).slice(1);
  t.same(args, ['rollback', '--to-intact', '--home', home]);
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'stratad.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

t.test('a damaged memiavl changelog entry is reported and the command the message names recovers the node', async (t) => {
  const home = await initHome(t, 150);
  const node = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < 10) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);

  const damaged = 5;
  const { segment } = damageEntry(join(home.home, 'data', 'committer.db', 'changelog'), damaged);
  let message = '';
  await startNode(t, home).then(
    () => t.fail('the node started on a damaged changelog'),
    (error: Error) => (message = error.message),
  );
  t.match(message, /CorruptionError|corrupt|damaged/i);
  t.ok(message.includes(segment), 'the message names the changelog segment');
  t.match(message, new RegExp(`intact only up to version ${damaged - 1}\\b`));
  t.notMatch(message, /memiavl is at version \d+ but FlatKV at/);

  const r = runNamedRollback(t, message, home.home);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, new RegExp(`Rolled back CMS to version ${damaged - 1}`));

  const again = await startNode(t, home);
  // The header of block `damaged` carries the app hash after block damaged - 1, from before the damage.
  const header = (await rpcResult(home.http, 'eth_getBlockByNumber', [`0x${damaged.toString(16)}`, false])) as { stateRoot: string };
  t.match(r.stdout, new RegExp(`Rolled back app state to height ${damaged - 1} and hash ${header.stateRoot.slice(2).toUpperCase()}`));
  t.match(again.output(), /replayed stored block/, 'the stored blocks above it were re-executed');
  const top = Number(await rpcResult(home.http, 'eth_blockNumber'));
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < top + 2) await new Promise((r) => setTimeout(r, 100));
  t.pass('and the node produces blocks past them');
  t.equal(await again.stop(), 0);
});

// The last entry of a stopped node's changelog was synced and acknowledged: a damaged length
// field makes it look like a torn tail, but it must be reported, not dropped.
t.test('a damaged length field of the last memiavl changelog entry is corruption, and the named command recovers the node', async (t) => {
  const home = await initHome(t, 150);
  const node = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < 6) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);

  const { segment, version, offset } = damageEntry(join(home.home, 'data', 'committer.db', 'changelog'), 'last', 'length');
  let message = '';
  await startNode(t, home).then(
    () => t.fail('the node started without the last acknowledged block'),
    (error: Error) => (message = error.message),
  );
  t.ok(message.includes(`${segment} is damaged at byte ${offset}`), `the message names the segment and the entry: ${message}`);
  t.match(message, new RegExp(`intact only up to version ${version - 1}\\b`));
  const r = runNamedRollback(t, message, home.home);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, new RegExp(`Rolled back CMS to version ${version - 1}`));
  const again = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < version + 2) await new Promise((r) => setTimeout(r, 100));
  t.pass('the node re-executes the stored block and produces past it');
  t.equal(await again.stop(), 0);
});

t.test('a damaged FlatKV changelog entry names the file and stratad rollback --to-intact, which recovers the node', async (t) => {
  const home = await initHome(t, 150);
  const node = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < 10) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);

  const { segment, version, offset } = damageEntry(join(home.home, 'data', 'flatkv', 'changelog'), 5);
  let message = '';
  await startNode(t, home).then(
    () => t.fail('the node started on a damaged FlatKV changelog'),
    (error: Error) => (message = error.message),
  );
  t.match(message, /CorruptionError|corrupt|damaged/i);
  t.ok(message.includes(`FlatKV changelog segment ${segment} is damaged at byte ${offset}`), `the message names the segment: ${message}`);
  const r = runNamedRollback(t, message, home.home);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, new RegExp(`Rolled back CMS to version ${version - 1}, the last version memiavl and FlatKV both reach intact`));

  const again = await startNode(t, home);
  const header = (await rpcResult(home.http, 'eth_getBlockByNumber', [`0x${version.toString(16)}`, false])) as { stateRoot: string };
  t.match(r.stdout, new RegExp(`Rolled back app state to height ${version - 1} and hash ${header.stateRoot.slice(2).toUpperCase()}`));
  t.match(again.output(), /replayed stored block/, 'the stored blocks above it were re-executed');
  const top = Number(await rpcResult(home.http, 'eth_blockNumber'));
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < top + 2) await new Promise((r) => setTimeout(r, 100));
  t.pass('and the node produces blocks past them');
  t.equal(await again.stop(), 0);
});

/** Complete memiavl snapshot versions of a node home, ascending. */
function snapshotVersions(home: string): number[] {
  return readdirSync(join(home, 'data', 'committer.db'))
    .map((n) => /^snapshot-(\d{20})$/.exec(n)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The stateRoot (app hash after the block before it) of block `height`, once it exists. */
async function stateRootOf(port: number, height: number): Promise<string> {
  for (;;) {
    const block = (await rpcResult(port, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false])) as { stateRoot: string } | null;
    if (block) return block.stateRoot;
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.test('a damaged memiavl snapshot is reported and the command the message names recovers the node', async (t) => {
  const home = await initHome(t, 150);
  const config = await loadConfig(home.home);
  const app = { ...config.app, stateCommit: { ...config.app.stateCommit, snapshotInterval: 5, keepRecent: 1 } };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml(app));
  const node = await startNode(t, home);
  while (snapshotVersions(home.home).length < 2) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);
  const committerDb = join(home.home, 'data', 'committer.db');
  const snapshots = snapshotVersions(home.home);
  const newest = snapshots.at(-1)!;
  const fallback = snapshots.at(-2)!;

  // A never-damaged copy of the home is the reference: the next block's header carries the
  // app hash at the height the node stopped at.
  const reference = { ...home, home: mkdtempSync(join(tmpdir(), 'strata-reference-')) };
  t.teardown(() => rmSync(reference.home, { recursive: true, force: true }));
  cpSync(home.home, reference.home, { recursive: true, verbatimSymlinks: true });
  const referenceNode = await startNode(t, reference);
  const stopped = Number(await rpcResult(reference.http, 'eth_blockNumber'));
  const expected = await stateRootOf(reference.http, stopped + 1);
  t.equal(await referenceNode.stop(), 0);

  // Flip a byte of the first non-empty file the newest snapshot's manifest lists.
  const snapshotDir = join(committerDb, `snapshot-${String(newest).padStart(20, '0')}`);
  const listed = readFileSync(join(snapshotDir, 'CHECKSUMS'), 'utf8')
    .split('\n')
    .map((line) => /^[0-9a-f]{8} (\d+) (.+)$/.exec(line))
    .find((m) => m !== null && Number(m[1]) > 0)!;
  const damagedFile = join(snapshotDir, listed[2]!);
  const bytes = readFileSync(damagedFile);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  writeFileSync(damagedFile, bytes);

  let message = '';
  await startNode(t, home).then(
    () => t.fail('the node started on a damaged snapshot'),
    (error: Error) => (message = error.message),
  );
  // The node prints the CorruptionError's message: the file and the command.
  t.ok(message.includes(`snapshot file ${damagedFile} fails its checksum`), `the message names the file: ${message}`);

  // Run exactly the command in backticks.
  const command = /`(stratadb repair-snapshots[^`]*)`/.exec(message)?.[1];
  t.ok(command, `the message names a command: ${message}`);
  const args = command!.split(/\s+/).slice(1);
  t.same(args, ['repair-snapshots', '-d', committerDb]);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'stratadb.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, new RegExp(`Removed snapshot ${newest} \\(${snapshotDir}\\)`));
  t.match(r.stdout, new RegExp(`current -> snapshot ${fallback}\\n`));
  t.match(r.stdout, new RegExp(`will open at version ${stopped}\\n`));
  t.same(snapshotVersions(home.home), snapshots.slice(0, -1));

  const again = await startNode(t, home);
  t.equal(await stateRootOf(home.http, stopped + 1), expected, 'the app hash matches the never-damaged reference');
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < stopped + 3) await new Promise((r) => setTimeout(r, 100));
  t.pass('and the node produces new blocks');
  t.equal(await again.stop(), 0);
});
