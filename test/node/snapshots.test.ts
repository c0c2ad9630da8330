/**
 * Snapshots between real nodes: a validator producing blocks with transfers and an ERC-20
 * writes a snapshot every few blocks (and writes them again after data/snapshots/ is deleted
 * under it); fresh homes restored from one with `stratad snapshots restore` — split on and off,
 * ss-backend pebbledb and rocksdb — serve exactly the validator's eth_getBalance,
 * eth_getStorageAt, eth_getCode and eth_call at the snapshot height, with EVM keys only in the
 * EVM SS when the split is on. A restore killed with SIGKILL mid-import leaves a home the node
 * refuses to serve; running the restore again starts over and succeeds.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listSnapshots, restoreMarkerPath, snapshotsDir } from '../../src/store/index.js';
import { ROOT, initHome, startNode, stratad } from './fixtures/node-process.js';
import { TRANSFERRED, buildState, configureApp, dumpStores, readings, rpc, sameChainHome } from './fixtures/snapshot-validator.js';

const INTERVAL = 4;

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

t.test('nodes restored from a validator\'s snapshot serve its state at the snapshot height', async (t) => {
  const validator = await initHome(t, 250);
  await configureApp(validator, { snapshotInterval: INTERVAL });
  const node = await startNode(t, validator);
  const probe = await buildState(validator);
  const root = snapshotsDir(join(validator.home, 'data'));

  // Deleted while the node runs: the next interval writes into a new directory.
  await waitFor('a first snapshot', () => (listSnapshots(root).length > 0 ? true : undefined));
  rmSync(root, { recursive: true, force: true });
  const snapshot = await waitFor('a snapshot above the token transfer', () =>
    listSnapshots(root).find((s) => s.manifest.height > probe.lastTxHeight),
  );
  const height = snapshot.manifest.height;
  t.equal(height % INTERVAL, 0, 'snapshots are taken every snapshot-interval blocks');
  t.ok(snapshot.manifest.extras.some((e) => e.name === 'block.bin'), 'the block at the height travels with it');
  // The validator prunes old snapshots while we work: restore from a copy.
  const copy = mkdtempSync(join(tmpdir(), 'strata-snapshot-copy-'));
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(snapshot.dir, copy, { recursive: true });
  const expected = await readings(validator, probe, height);
  t.equal(expected[0], `0x${TRANSFERRED.toString(16)}`, 'the recipient holds the transfer');
  t.not(expected[3], '0x', 'the token has code');
  await waitFor('older snapshots pruned', () => (listSnapshots(root).length === 2 && listSnapshots(root)[0]!.manifest.height > height + INTERVAL ? true : undefined));
  t.equal(listSnapshots(root).length, 2, 'snapshot-keep-recent = 2 are kept');
  t.equal(await node.stop(), 0);

  for (const backend of ['pebbledb', 'rocksdb'] as const) {
    for (const split of [false, true]) {
      t.test(`${backend}, split ${split ? 'on' : 'off'}`, async (t) => {
        const home = await sameChainHome(t, validator, { backend, split });
        const restored = stratad(['snapshots', 'restore', '--home', home.home, '--from', copy]);
        t.equal(restored.status, 0, restored.stderr);
        t.match(restored.stdout, new RegExp(`restored height=${height} app_hash=${snapshot.manifest.appHash.toUpperCase()}`));
        const follower = await startNode(t, home);
        t.equal(await rpc(home, 'eth_blockNumber', []), `0x${height.toString(16)}`, 'the restored node is at the snapshot height');
        t.same(await readings(home, probe, height), expected, 'balances, nonce, code, storage and eth_call as on the validator');
        t.same(await readings(home, probe, height), await readings(home, probe, Number(await rpc(home, 'eth_blockNumber', []))), 'and latest is that height');
        await sleep(700);
        t.equal(await rpc(home, 'eth_blockNumber', []), `0x${height.toString(16)}`, 'it follows nothing');
        t.equal(await follower.stop(), 0);
        const data = join(home.home, 'data');
        const cosmosStores = dumpStores(join(data, backend), backend);
        if (split) {
          t.notOk(cosmosStores.includes('evm'), `no evm key in the Cosmos SS (stores: ${cosmosStores.join(', ')})`);
          t.ok(existsSync(join(data, 'evm_ss')), 'data/evm_ss/ holds the EVM state');
        } else {
          t.ok(cosmosStores.includes('evm'), 'without the split the Cosmos SS holds evm');
          t.notOk(existsSync(join(data, 'evm_ss')), 'and there is no data/evm_ss/');
        }
      });
    }
  }

  t.test('a restore killed mid-import is refused by the node and starts over when run again', async (t) => {
    const home = await sameChainHome(t, validator, { backend: 'pebbledb', split: true });
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'stratad.ts'), 'snapshots', 'restore', '--home', home.home, '--from', copy], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    t.teardown(async () => {
      child.kill('SIGKILL');
      await ended;
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      // The chunks are verified; the SC and SS imports are running.
      if (out.includes('verified chunk')) child.kill('SIGKILL');
    });
    await ended;
    t.notMatch(out, /restored height/, 'the restore did not finish');
    const data = join(home.home, 'data');
    t.ok(existsSync(restoreMarkerPath(data)), 'the home is marked as holding a partial import');
    const refused = stratad(['start', '--home', home.home]);
    t.equal(refused.status, 1);
    t.match(refused.stderr, /holds a snapshot restore that did not finish .* run the restore again/);
    const again = stratad(['snapshots', 'restore', '--home', home.home, '--from', copy]);
    t.equal(again.status, 0, again.stderr);
    t.notOk(existsSync(restoreMarkerPath(data)));
    const follower = await startNode(t, home);
    t.same(await readings(home, probe, height), expected, 'the second restore serves the validator\'s state');
    t.equal(await follower.stop(), 0);
    const nonEmpty = stratad(['snapshots', 'restore', '--home', home.home, '--from', copy]);
    t.equal(nonEmpty.status, 1, 'a home that holds state is not restored into');
    t.match(nonEmpty.stderr, /already holds state; a snapshot is restored only into an emptied data directory/);
  });

  t.test('stratad snapshots list and export', async (t) => {
    const list = stratad(['snapshots', 'list', '--home', validator.home]);
    t.equal(list.status, 0);
    t.match(list.stdout, /height=\d+ format=1 chunks=1 bytes=\d+ app_hash=[0-9A-F]{64} dir=/);
    const exported = stratad(['snapshots', 'export', '--home', validator.home, '--chunk-bytes', '2048']);
    t.equal(exported.status, 0, exported.stderr);
    const m = /wrote snapshot height=(\d+) chunks=(\d+)/.exec(exported.stdout);
    t.ok(m && Number(m[2]) > 1, 'a small chunk size gives several chunks');
    const bad = stratad(['snapshots', 'export', '--home', validator.home, '--chunk-bytes', '10']);
    t.equal(bad.status, 1);
    t.match(bad.stderr, /chunk size 10 is outside 1024\.\.10000000 bytes/);
  });
});
