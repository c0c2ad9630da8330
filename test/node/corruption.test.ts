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
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, renderAppToml } from '../../src/config/index.js';
import { initHome, ROOT, startNode } from './fixtures/node-process.js';
import { rpcResult } from './fixtures/rpc-client.js';

/** Flips the last payload byte of the changelog entry of `version`; returns the segment path. */
function damageEntry(home: string, version: number): string {
  const dir = join(home, 'data', 'committer.db', 'changelog');
  const segment = join(dir, readdirSync(dir).filter((n) => /^\d{20}$/.test(n)).sort()[0]!);
  const data = readFileSync(segment);
  for (let pos = 0; pos + 16 <= data.length; ) {
    const len = data.readUInt32LE(pos);
    if (Number(data.readBigUInt64LE(pos + 8)) === version) {
      data[pos + 8 + len - 1]! ^= 0x01;
      writeFileSync(segment, data);
      return segment;
    }
    pos += 8 + len;
  }
  throw new Error(`no changelog entry of version ${version} in ${segment}`);
}

t.test('a damaged memiavl changelog entry is reported and the command the message names recovers the node', async (t) => {
  const home = await initHome(t, 150);
  const node = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < 10) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);

  const damaged = 5;
  const segment = damageEntry(home.home, damaged);
  let message = '';
  await startNode(t, home).then(
    () => t.fail('the node started on a damaged changelog'),
    (error: Error) => (message = error.message),
  );
  t.match(message, /CorruptionError|corrupt|damaged/i);
  t.ok(message.includes(segment), 'the message names the changelog segment');
  t.match(message, new RegExp(`intact only up to version ${damaged - 1}\\b`));
  t.notMatch(message, /memiavl is at version \d+ but FlatKV at/);

  // Run exactly the command in backticks.
  const command = /`(stratad rollback[^`]*)`/.exec(message)?.[1];
  t.ok(command, `the message names a command: ${message}`);
  const args = command!.split(/\s+/).slice(1);
  t.same(args, ['rollback', '--to-intact', '--home', home.home]);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'stratad.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
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
