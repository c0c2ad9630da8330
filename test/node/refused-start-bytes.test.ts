/**
 * A refused start changes nothing under data/: every file name and every byte is the same
 * afterwards (the tree is hashed before and after), for each split safety check, for a lost
 * state store and for an unfinished snapshot restore. Real `stratad` processes; the refusals
 * used to leave RocksDB's MANIFEST, OPTIONS, LOG and a new WAL in data/flatkv/working/.
 */
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, lstatSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadConfig, renderAppToml } from '../../src/config/index.js';
import { EvmStateStore, evmStoreDir, restoreMarkerPath } from '../../src/store/index.js';
import { rawRpc } from './fixtures/rpc-client.js';
import { initHome, startNode, stratad, type TestHome } from './fixtures/node-process.js';

/** Every entry under `dir` with a hash of its contents (a link's target), sorted. */
function treeHash(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const stat = lstatSync(full);
      const rel = relative(dir, full);
      if (stat.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        out.push(`${rel}/`);
        walk(full);
      } else out.push(`${rel} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(dir);
  return out.sort();
}

async function waitForHeight(home: TestHome, height: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const { json } = await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}');
    if (Number((json as { result: string }).result) >= height) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the node did not reach height ${height}`);
}

async function setSplit(home: TestHome, split: boolean): Promise<void> {
  const config = await loadConfig(home.home);
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, stateStore: { ...config.app.stateStore, evmSsSplit: split } }));
}

/** A home whose node produced a few blocks with the split as given, then stopped. */
async function homeWithHistory(t: Test, split: boolean): Promise<TestHome> {
  const home = await initHome(t, 150);
  await setSplit(home, split);
  const node = await startNode(t, home);
  await waitForHeight(home, 4);
  t.equal(await node.stop(), 0);
  return home;
}

function refusedUnchanged(t: Test, home: TestHome, pattern: RegExp, hasState = true): void {
  const data = join(home.home, 'data');
  const before = treeHash(data);
  if (hasState) t.ok(before.some((e) => e.startsWith('flatkv/working/')), 'the tree covers FlatKV\'s working DB');
  const refused = stratad(['start', '--home', home.home]);
  t.equal(refused.status, 1, 'the start is refused');
  t.match(refused.stderr, pattern);
  t.notMatch(refused.stderr, /\n\s+at /, 'no stack trace');
  t.same(treeHash(data), before, 'every file name and byte under data/ is unchanged');
}

t.test('check 1: the split turned on over history without a state sync', async (t) => {
  const home = await homeWithHistory(t, false);
  await setSplit(home, true);
  refusedUnchanged(t, home, /EVM SS safety check 1 failed: EVM SS directory ".*evm_ss" does not exist/);
});

t.test('check 2: data/evm_ss holds an EVM SS without data', async (t) => {
  const home = await homeWithHistory(t, false);
  const evm = await EvmStateStore.open(evmStoreDir(join(home.home, 'data')), { backend: 'pebbledb' });
  await evm.close();
  await setSplit(home, true);
  refusedUnchanged(t, home, /EVM SS safety check 2 failed: the EVM SS in ".*evm_ss" holds no data/);
});

t.test('check 3: the EVM SS alone got a higher earliest version', async (t) => {
  const home = await homeWithHistory(t, true);
  const evm = await EvmStateStore.open(evmStoreDir(join(home.home, 'data')), { backend: 'pebbledb' });
  evm.setEarliestVersion(3);
  await evm.close();
  refusedUnchanged(t, home, /EVM SS safety check 3 failed: EVM SS earliest version 3 .* does not match Cosmos SS earliest version 0/);
});

t.test('a deleted state store and an unfinished snapshot restore', async (t) => {
  const home = await homeWithHistory(t, false);
  const data = join(home.home, 'data');
  rmSync(join(data, 'pebbledb'), { recursive: true });
  refusedUnchanged(t, home, /the state store \(.*pebbledb, ss-backend "pebbledb"\) holds no history but the state commitment has committed blocks/);

  const other = await initHome(t);
  mkdirSync(join(other.home, 'data'), { recursive: true });
  writeFileSync(restoreMarkerPath(join(other.home, 'data')), '{"height":5,"backend":"pebbledb","split":false}\n');
  refusedUnchanged(t, other, /holds a snapshot restore that did not finish .*its state is partial and is never served: run the restore again/, false);
});
