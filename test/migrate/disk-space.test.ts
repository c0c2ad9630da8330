/**
 * `stratad migrate evm-ss-split` refuses a home whose filesystem has less free space than
 * data/ and wasm/ hold, saying how much to free, and leaves every byte of the home as it was.
 * The home lives on a real small filesystem (a tmpfs sized to hold it with about half its data
 * size to spare), so the refusal comes from the check reading the filesystem, not from a hint.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { treeBytes } from '../../src/node/migrate/checks.js';
import { homePicture, runStratad, startValidator, stoppedRpcNode } from './fixtures.js';

const PAGE = 4096;

/** Bytes a tmpfs spends on the files under `path` (whole pages per file). */
function pagesBytes(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return Math.ceil(stat.size / PAGE) * PAGE;
  return readdirSync(path).reduce((sum, name) => sum + pagesBytes(join(path, name)), 0);
}

/** A tmpfs of `bytes` mounted on a new temp directory; unmounted and removed at teardown. */
function smallFilesystem(t: Test, bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-migrate-small-fs-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mount.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`this test mounts a small tmpfs and needs root for it: mount failed: ${mount.stderr}`);
  }
  t.teardown(() => {
    const umount = spawnSync('umount', [dir], { encoding: 'utf8' });
    if (umount.status !== 0) spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

t.test('too little free disk space is refused with how much to free, and the home is unchanged', async (t) => {
  const net = await startValidator(t);
  const rpcHome = await stoppedRpcNode(t, net, 3);
  const dataBytes = treeBytes(join(rpcHome.home, 'data')) + treeBytes(join(rpcHome.home, 'wasm'));
  // The home fits with about half of its data size free: less than the migration needs.
  const spare = Math.ceil(dataBytes / 2 / PAGE) * PAGE;
  const home = smallFilesystem(t, pagesBytes(rpcHome.home) + spare);
  cpSync(rpcHome.home, home, { recursive: true });
  const fs = statfsSync(home);
  const freeBytes = Number(fs.bavail) * Number(fs.bsize);
  t.ok(freeBytes < dataBytes, `the small filesystem has ${freeBytes} bytes free for ${dataBytes} bytes of data`);

  const before = homePicture(home);
  const run = await runStratad(['migrate', 'evm-ss-split', '--home', home, '--rpc', net.rpcUrl, '--yes']);
  t.equal(run.status, 1, 'refused', { stdout: run.stdout, stderr: run.stderr });
  const reason = /migration refused \(disk space\): the filesystem of (\S+) has (\d+) bytes free, but data\/ and wasm\/ hold (\d+) bytes/.exec(run.stderr);
  t.ok(reason, 'the reason names the filesystem, its free bytes and the data size');
  t.equal(reason?.[1], home, 'the filesystem of the home');
  t.equal(Number(reason?.[2]), freeBytes, 'the free bytes the filesystem reports');
  t.equal(Number(reason?.[3]), dataBytes, 'the bytes data/ and wasm/ hold');
  t.match(
    run.stderr,
    `Fix: free at least ${dataBytes - freeBytes} more bytes on that filesystem (deleting data/snapshots/ is safe), then run the migration again`,
    'the fix says how many bytes to free and what is safe to delete',
  );
  t.match(run.stderr, /Nothing in the home was changed/);
  t.same(homePicture(home), before, 'every byte of the home is unchanged');
});
