/**
 * State sync between real processes: a validator that writes a snapshot every few blocks holds
 * transfers and an ERC-20; empty homes configured only through config.toml ([statesync] with
 * the validator's RPC and trusted block, persistent_peers) restore its snapshot from the peer,
 * serve exactly the validator's eth_getBalance, eth_getStorageAt, eth_getCode and eth_call at
 * the snapshot height, report earliest = the snapshot height, and follow new blocks. With
 * evm-ss-split on (and ss-backend rocksdb) EVM keys are only under data/evm_ss/, and a stale
 * data/evm_ss/ left in the home is removed first. A wrong trust hash is refused with nothing
 * written.
 */
import t from 'tap';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { freePort } from '../../bench/node/node-process.js';
import { listSnapshots, snapshotsDir } from '../../src/store/index.js';
import { consensus, heightOf, waitUntil } from '../sync/fixtures/network.js';
import { buildState, dumpStores, readings, rpc } from '../node/fixtures/snapshot-validator.js';
import { blockHashAt, sendTransfer, snapshottingValidator, spawnNode, startSyncing, stateSyncHome } from './fixtures/statesync-network.js';

const INTERVAL = 8;

/** Every file under `dir` with its size and mtime: what "nothing changed on disk" compares. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else out.push(`${path} ${s.size} ${s.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

t.test('empty homes state-sync from a peer and serve the validator\'s state', async (t) => {
  // Every snapshot is kept, so one at or below the trust height is still there when a home syncs.
  const validator = await snapshottingValidator(t, { snapshotInterval: INTERVAL, snapshotKeepRecent: 0 });
  const validatorRun = await startSyncing(t, validator);
  const probe = await buildState(validator);
  const root = snapshotsDir(join(validator.home, 'data'));
  await waitUntil('a snapshot above the last transaction', () => listSnapshots(root).some((s) => s.manifest.height > probe.lastTxHeight), 90_000);
  const trustHeight = await heightOf(validator);
  const trustHash = await blockHashAt(validator, trustHeight);
  const settings = { peers: [validator], rpcServers: [validator], trustHeight, trustHash };

  t.test('a wrong trust hash is refused and nothing is written', async (t) => {
    const home = await stateSyncHome(t, validator, { ...settings, trustHash: `${trustHash.slice(0, 60)}${trustHash.endsWith('0') ? '1111' : '0000'}` });
    const data = join(home.home, 'data');
    const before = tree(data);
    const run = spawnNode(t, home);
    const ended = await run.ended;
    t.equal(ended.code, 1, 'stratad start exits with 1');
    t.match(run.output(), new RegExp(`trust-hash mismatch: the block at trust-height ${trustHeight} on 127\\.0\\.0\\.1:${validator.rpc} has hash ${trustHash}`));
    t.match(run.output(), /nothing was imported\. Set trust-height and trust-hash from a trusted RPC endpoint/);
    t.same(tree(data), before, 'data/ is byte for byte as it was');
  });

  t.test('an rpc-servers entry that does not answer is refused and nothing is written', async (t) => {
    const closed = await freePort();
    const home = await stateSyncHome(t, validator, { ...settings, rpcServers: [validator, { ...validator, rpc: closed }] });
    const data = join(home.home, 'data');
    const before = tree(data);
    const run = spawnNode(t, home);
    const ended = await run.ended;
    t.equal(ended.code, 1, 'stratad start exits with 1');
    t.match(run.output(), new RegExp(`cannot fetch the trusted block ${trustHeight} from rpc-servers entry 127\\.0\\.0\\.1:${closed} .*check \\[statesync\\] rpc-servers`));
    t.same(tree(data), before, 'data/ is as it was');
  });

  const firstSnapshot = listSnapshots(root).at(-1)!.manifest.height;
  for (const variant of [
    { name: 'pebbledb, split off: the newest snapshot at or below the trust height', backend: 'pebbledb' as const, split: false, below: true },
    // Below the first snapshot, the trusted block verifies a newer snapshot forward, through the blocks between.
    { name: 'rocksdb, split on, a stale data/evm_ss/, a trust height below every snapshot', backend: 'rocksdb' as const, split: true, below: false },
  ]) {
    t.test(variant.name, async (t) => {
      const trust = variant.below ? settings : { ...settings, trustHeight: firstSnapshot - 1, trustHash: await blockHashAt(validator, firstSnapshot - 1) };
      const home = await stateSyncHome(t, validator, trust, { backend: variant.backend, split: variant.split });
      const data = join(home.home, 'data');
      if (variant.split) {
        mkdirSync(join(data, 'evm_ss'), { recursive: true });
        writeFileSync(join(data, 'evm_ss', 'LEFT-BY-A-FAILED-ATTEMPT'), 'stale');
      }
      const run = await startSyncing(t, home);
      const restored = /state sync: snapshot restored .*height=(\d+)/.exec(run.output());
      t.ok(restored, 'the node logs the restored snapshot');
      const height = Number(restored![1]);
      t.equal(height % INTERVAL, 0, `snapshot ${height} is one the validator wrote`);
      if (variant.below) {
        const newestBelow = Math.floor(trustHeight / INTERVAL) * INTERVAL;
        t.equal(height, newestBelow, `the newest snapshot at or below the trust height ${trustHeight} was used`);
      } else {
        t.ok(height > trust.trustHeight, `snapshot ${height} above the trust height ${trust.trustHeight} was verified forward`);
      }
      t.match(run.output(), /state sync: trusted block verified/);
      t.match(run.output(), /state sync: fetched and verified snapshot chunks/, 'progress is logged (stderr is not a terminal)');
      if (variant.split) t.match(run.output(), /removing a stale EVM state store left by an earlier attempt/);
      const status = (await consensus(home, '/status')).result.sync_info as { earliest_block_height: string };
      t.equal(status.earliest_block_height, String(height), 'earliest = the snapshot height');
      t.same(await readings(home, probe, height), await readings(validator, probe, height), 'balances, nonce, code, storage and eth_call at the snapshot height');

      // It follows the chain from there: a new transfer reaches it through block sync.
      const later = await sendTransfer(validator, probe.recipient, parseEther('0.5'));
      await waitUntil(`the synced node at ${later}`, async () => (await heightOf(home)) >= later, 120_000);
      t.same(await readings(home, probe, later), await readings(validator, probe, later), `identical readings at the later height ${later}`);
      const before = BigInt((await rpc(home, 'eth_getBalance', [probe.recipient, `0x${(later - 1).toString(16)}`])) as string);
      const after = BigInt((await rpc(home, 'eth_getBalance', [probe.recipient, `0x${later.toString(16)}`])) as string);
      t.equal(after - before, parseEther('0.5'), 'the new transfer is there');
      await t.rejects(rpc(home, 'eth_getBalance', [probe.recipient, `0x${(height - 1).toString(16)}`]), 'a height below the snapshot is not served');
      t.equal(await run.stop(), 0, 'the node stops cleanly');

      const stores = dumpStores(join(data, variant.backend), variant.backend);
      if (variant.split) {
        t.notOk(stores.includes('evm'), `no evm key in the Cosmos SS (stores: ${stores.join(', ')})`);
        t.ok(stores.includes('bank'), 'balances stay in the Cosmos SS');
        t.notOk(existsSync(join(data, 'evm_ss', 'LEFT-BY-A-FAILED-ATTEMPT')), 'the stale EVM SS is gone');
        t.ok(readdirSync(join(data, 'evm_ss')).length > 0, 'data/evm_ss/ holds the EVM state');
      } else {
        t.ok(stores.includes('evm'), 'without the split the Cosmos SS holds evm');
        t.notOk(existsSync(join(data, 'evm_ss')), 'and there is no data/evm_ss/');
      }

      // A restart starts from the home's own state: no second state sync.
      const again = await startSyncing(t, home);
      t.notMatch(again.output(), /state sync: fetching the trusted block/, 'a home holding state is not state-synced again');
      t.ok((await heightOf(home)) >= later, 'it resumes at its height');
      t.equal(await again.stop(), 0);
    });
  }

  t.teardown(async () => {
    await validatorRun.stop();
  });
});
