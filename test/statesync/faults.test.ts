/**
 * State sync under faults, between real processes. Two peers offer the same snapshot of
 * several chunks (a follower exported it with small chunks; the validator serves a copy);
 * the follower serves every chunk corrupted (the STRATA_TEST_CORRUPT_SNAPSHOT_CHUNK switch):
 * the syncing node rejects each of its chunks by hash, fetches them from the validator, and
 * ends with the validator's state. A node killed with SIGKILL mid-download and again after the
 * import but before the restore is marked complete starts over at each restart and completes
 * cleanly; the half-done home in between is never served.
 */
import t from 'tap';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { restoreMarkerPath, snapshotsDir } from '../../src/store/index.js';
import { followerHome, heightOf, waitUntil } from '../sync/fixtures/network.js';
import { buildState, readings } from '../node/fixtures/snapshot-validator.js';
import { blockHashAt, snapshottingValidator, spawnNode, startSyncing, stateSyncHome, stratadSync } from './fixtures/statesync-network.js';

t.test('state sync survives a corrupting peer and kill -9', async (t) => {
  const validator = await snapshottingValidator(t, {});
  const validatorRun = await startSyncing(t, validator);
  const probe = await buildState(validator);
  const follower = await followerHome(t, validator);
  let followerRun = await startSyncing(t, follower);
  await waitUntil('the follower past the last transaction', async () => (await heightOf(follower)) > probe.lastTxHeight, 120_000);
  t.equal(await followerRun.stop(), 0);

  // A snapshot of many small chunks, offered by both peers.
  const exported = stratadSync(['snapshots', 'export', '--home', follower.home, '--chunk-bytes', '1024']);
  t.equal(exported.status, 0, exported.stderr);
  const m = /wrote snapshot height=(\d+) chunks=(\d+) .* dir=(\S+)/.exec(exported.stdout);
  const height = Number(m![1]);
  const chunks = Number(m![2]);
  t.ok(chunks >= 3, `the snapshot has ${chunks} chunks`);
  cpSync(m![3]!, join(snapshotsDir(join(validator.home, 'data')), String(height)), { recursive: true });
  followerRun = await startSyncing(t, follower, { env: { STRATA_TEST_CORRUPT_SNAPSHOT_CHUNK: 'flip@all' } });

  const trustHeight = await heightOf(validator);
  const settings = { peers: [validator, follower], rpcServers: [validator], trustHeight, trustHash: await blockHashAt(validator, trustHeight) };
  const expected = await readings(validator, probe, height);

  t.test('chunks a peer corrupts are rejected and fetched from the other', async (t) => {
    const home = await stateSyncHome(t, validator, settings, { split: true });
    const run = await startSyncing(t, home);
    const out = run.output();
    t.match(out, new RegExp(`discovered snapshot .*height=${height}`));
    const rejected = out.split('\n').filter((line) => line.includes('rejected a snapshot chunk from a peer'));
    t.ok(rejected.length >= 1, `${rejected.length} corrupt chunks were rejected`);
    t.ok(rejected.every((line) => line.includes(follower.nodeId)), 'each came from the corrupting peer');
    t.ok(rejected.every((line) => /corrupt/.test(line)), 'each by its sha256');
    t.match(out, new RegExp(`state sync: snapshot restored .*height=${height}`));
    t.same(await readings(home, probe, height), expected, 'the state is the validator\'s');
    t.equal(await run.stop(), 0);
  });

  t.test('kill -9 during the download and before the commit: each restart starts over', async (t) => {
    const home = await stateSyncHome(t, validator, { ...settings, peers: [validator] }, { split: true, backend: 'rocksdb' });
    const data = join(home.home, 'data');
    for (const crash of ['chunk@1', 'before-commit']) {
      const run = spawnNode(t, home, { STRATA_TEST_STATESYNC_CRASH_AT: crash });
      const ended = await Promise.race([run.ended, sleep(240_000, undefined, { ref: false }).then(() => ({ code: null, signal: 'did not end' }))]);
      t.equal(ended.signal, 'SIGKILL', `killed at ${crash}`);
      t.ok(existsSync(restoreMarkerPath(data)), `after ${crash} the home is marked as holding a partial import`);
      if (crash === 'before-commit') t.ok(existsSync(join(data, 'blockstore')), 'the stores and the block were written');
      if (crash === 'before-commit') t.match(run.output(), /discarding a state sync that did not finish/, 'the second run discarded the first one\'s partial import');
    }
    const run = await startSyncing(t, home);
    t.match(run.output(), /discarding a state sync that did not finish/);
    t.match(run.output(), new RegExp(`state sync: snapshot restored .*height=${height}`));
    t.notOk(existsSync(restoreMarkerPath(data)), 'the restore is complete');
    t.same(await readings(home, probe, height), expected, 'the state is the validator\'s');
    const now = await heightOf(validator);
    await waitUntil(`the node follows to ${now}`, async () => (await heightOf(home)) >= now, 120_000);
    t.equal(await run.stop(), 0);
  });

  t.teardown(async () => {
    await followerRun.stop();
    await validatorRun.stop();
  });
});
