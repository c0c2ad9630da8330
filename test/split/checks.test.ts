/**
 * The split's lifecycle (spec, "States and transitions") without state sync, and its startup
 * safety checks ("Errors: startup safety checks"): turning the split on over a node with
 * history is refused by check 1 (no EVM SS directory, or an empty one) or check 2 (an EVM SS
 * without data); divergent earliest versions abort by check 3; turning the split off works and
 * leaves `data/evm_ss/` alone. A refused start must change nothing on disk, which is checked
 * against a listing of every file (size and content hash) taken before the attempt. Also the
 * startup log lines ("Events: startup log lines").
 */
import t, { type Test } from 'tap';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { memoryLogger, type LogRecord } from '../../src/log/logger.js';
import {
  CompositeStateStore,
  EvmStateStore,
  MvccStore,
  SplitSafetyCheckError,
  cosmosStoreDir,
  evmStoreDir,
  type Backend,
  type NamedChangeset,
  type StateStoreConfig,
} from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { address, evmKey, listingDiff, recordsNamed, slot, ssConfig, strings, treeListing } from './fixtures/helpers.js';

const SEPARATE_DBS = [false, true] as const;
const FIX_STATE_SYNC = /full state sync/;
const FIX_SPLIT_OFF = /evm-ss-split = false/;

const EVM_KEY = evmKey.storage(address(1), slot(1));
const BANK_KEY = Buffer.from('balance/alice');

/** A block touching both sides: its values name the version. */
function block(version: number): NamedChangeset[] {
  return [
    { name: 'bank', pairs: [{ key: BANK_KEY, value: Buffer.from(`bank@${version}`) }] },
    { name: 'evm', pairs: [{ key: EVM_KEY, value: Buffer.from(`evm@${version}`) }] },
  ];
}

async function writeBlocks(dir: string, config: StateStoreConfig, from: number, to: number): Promise<void> {
  const store = await CompositeStateStore.open(dir, config, memoryLogger().logger);
  for (let v = from; v <= to; v++) await store.applyChangesets(v, block(v));
  await store.close();
}

/**
 * Opens with `config`, expecting a refusal by `check`; asserts that the data directory is
 * byte for byte what it was. Returns the error and the log records of the attempt.
 */
async function expectRefused(
  t: Test,
  dir: string,
  config: StateStoreConfig,
  check: 1 | 2 | 3,
): Promise<{ error: SplitSafetyCheckError | undefined; records: LogRecord[] }> {
  const before = treeListing(dir);
  const { logger, records } = memoryLogger();
  let error: SplitSafetyCheckError | undefined;
  try {
    const store = await CompositeStateStore.open(dir, config, logger);
    await store.close();
    t.fail(`the start was not refused (expected check ${check})`);
  } catch (caught) {
    if (caught instanceof SplitSafetyCheckError) error = caught;
    else t.fail(`expected a SplitSafetyCheckError, got ${String(caught)}`);
  }
  t.equal(error?.check, check, `refused by check ${check}`);
  t.equal(error?.code, 'STRATA_SPLIT_CHECK_FAILED', 'with the split-check error code');
  t.same(listingDiff(before, treeListing(dir)), [], 'the refused start changed nothing on disk');
  return { error, records };
}

function assertFixes(t: Test, message: string): void {
  t.match(message, FIX_STATE_SYNC, 'the message names the fix "complete a full state sync"');
  t.match(message, FIX_SPLIT_OFF, 'and the fix "set evm-ss-split = false"');
}

for (const backend of BACKENDS) {
  for (const separateDbs of SEPARATE_DBS) {
    const layout = `${backend}, separateDbs=${separateDbs}`;
    const splitOn = ssConfig(backend, true, separateDbs);
    const splitOff = ssConfig(backend, false, separateDbs);

    t.test(`${layout}: split-off node with history, split turned on without state sync: check 1`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOff, 1, 3);
      const { error, records } = await expectRefused(t, dir, splitOn, 1);
      const message = error?.message ?? '';
      t.ok(message.includes(`"${evmStoreDir(dir)}"`), 'the message names the EVM SS directory');
      t.match(message, /does not exist/, 'and says it does not exist');
      assertFixes(t, message);
      t.same(readdirSync(dir).sort(), [backend], 'no data/evm_ss was created');
      t.same(recordsNamed(records, 'EVM state store enabled'), [], 'the EVM SS was never reported enabled');

      // The second fix works: with the split off again the node starts with its data intact.
      const store = await CompositeStateStore.open(dir, splitOff, memoryLogger().logger);
      t.same(strings([store.get('bank', 3, BANK_KEY), store.get('evm', 3, EVM_KEY)]), ['bank@3', 'evm@3'], 'split off again, the node serves its data');
      await store.close();
    });

    t.test(`${layout}: split turned on over history with an empty data/evm_ss: check 1`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOff, 1, 3);
      mkdirSync(evmStoreDir(dir));
      const { error } = await expectRefused(t, dir, splitOn, 1);
      const message = error?.message ?? '';
      t.ok(message.includes(`"${evmStoreDir(dir)}"`), 'the message names the EVM SS directory');
      t.match(message, /is empty/, 'and says it is empty');
      assertFixes(t, message);
      t.same(readdirSync(evmStoreDir(dir)), [], 'data/evm_ss is still empty');
    });

    t.test(`${layout}: a split node whose data/evm_ss was deleted: check 1`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOn, 1, 3);
      rmSync(evmStoreDir(dir), { recursive: true });
      const { error } = await expectRefused(t, dir, splitOn, 1);
      assertFixes(t, error?.message ?? '');
      t.same(readdirSync(dir).sort(), [backend], 'data/evm_ss was not recreated');
    });

    t.test(`${layout}: data/evm_ss holds an EVM SS without data, the Cosmos SS has history: check 2`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOff, 1, 3);
      // An EVM SS that was opened (so its DBs exist) but never written.
      const evm = await EvmStateStore.open(evmStoreDir(dir), { backend, separateDbs });
      await evm.close();
      const { error } = await expectRefused(t, dir, splitOn, 2);
      const message = error?.message ?? '';
      t.ok(message.includes(`"${evmStoreDir(dir)}"`), 'the message names the EVM SS directory');
      t.match(message, /holds no data/, 'and says the EVM SS holds no data');
      assertFixes(t, message);
    });

    t.test(`${layout}: the EVM SS alone was pruned: check 3`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOn, 1, 10);
      const evm = await EvmStateStore.open(evmStoreDir(dir), { backend, separateDbs });
      await evm.prune(4);
      t.equal(BigInt(evm.earliestVersion()), 5n, 'the EVM SS now starts at 5');
      await evm.close();
      const { error } = await expectRefused(t, dir, splitOn, 3);
      const message = error?.message ?? '';
      t.match(message, /EVM SS earliest version 5\b/, 'the message names the EVM SS earliest version');
      t.match(message, /Cosmos SS earliest version 0\b/, 'and the Cosmos SS earliest version');
      t.ok(message.includes(evmStoreDir(dir)) && message.includes(cosmosStoreDir(dir, backend)), 'and both directories');
      assertFixes(t, message);
    });

    t.test(`${layout}: the Cosmos SS alone got a higher earliest version: check 3`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOn, 1, 10);
      // Opened as the composite opens it, so that nothing "evm" is applied by mistake.
      const cosmos = await MvccStore.open(cosmosStoreDir(dir, backend), { backend, logOnlyStores: ['evm'] });
      cosmos.setEarliestVersion(3);
      await cosmos.close();
      const { error } = await expectRefused(t, dir, splitOn, 3);
      const message = error?.message ?? '';
      t.match(message, /EVM SS earliest version 0\b/, 'the message names the EVM SS earliest version');
      t.match(message, /Cosmos SS earliest version 3\b/, 'and the Cosmos SS earliest version');
      assertFixes(t, message);
    });

    if (separateDbs) {
      t.test(`${layout}: one EVM sub-DB alone got a higher earliest version: check 3`, async (t) => {
        const dir = t.testdir();
        await writeBlocks(dir, splitOn, 1, 10);
        const storage = await MvccStore.open(join(evmStoreDir(dir), 'storage'), { backend });
        storage.setEarliestVersion(6);
        await storage.close();
        const { error } = await expectRefused(t, dir, splitOn, 3);
        t.match(error?.message ?? '', /EVM SS earliest version 6\b/, 'the EVM SS earliest version is that of its highest sub-DB');
      });
    }

    t.test(`${layout}: both sides pruned together pass check 3`, async (t) => {
      const dir = t.testdir();
      await writeBlocks(dir, splitOn, 1, 10);
      let store = await CompositeStateStore.open(dir, splitOn, memoryLogger().logger);
      await store.prune(4);
      await store.close();
      store = await CompositeStateStore.open(dir, splitOn, memoryLogger().logger);
      t.equal(BigInt(store.cosmos.earliestVersion()), 5n, 'the Cosmos SS starts at 5');
      t.equal(BigInt(store.evm?.earliestVersion() ?? -1), 5n, 'so does the EVM SS');
      t.same(strings([store.get('evm', 5, EVM_KEY), store.get('bank', 5, BANK_KEY)]), ['evm@5', 'bank@5'], 'both serve version 5');
      await store.close();
    });

    t.test(`${layout}: split on → off: starts, leaves data/evm_ss untouched, EVM reads miss split-era writes`, async (t) => {
      const dir = t.testdir();
      const splitEraKey = evmKey.nonce(address(2));
      let store = await CompositeStateStore.open(dir, splitOn, memoryLogger().logger);
      for (let v = 1; v <= 3; v++) await store.applyChangesets(v, block(v));
      await store.applyChangesets(4, [{ name: 'evm', pairs: [{ key: splitEraKey, value: Buffer.from('written with the split on') }] }]);
      await store.drain();
      t.equal(store.get('evm', 4, splitEraKey)?.toString(), 'written with the split on', 'with the split on, the key reads back');
      await store.close();
      const evmBefore = treeListing(evmStoreDir(dir));

      store = await CompositeStateStore.open(dir, splitOff, memoryLogger().logger);
      t.equal(store.evm, undefined, 'the EVM SS is no longer opened');
      t.equal(BigInt(store.latestVersion()), 4n, 'the node resumes at version 4');
      t.equal(store.get('evm', 4, splitEraKey), undefined, 'the key written with the split on reads as absent');
      t.equal(store.get('evm', 3, EVM_KEY), undefined, 'so does every other EVM write of the split era');
      t.equal(store.get('bank', 3, BANK_KEY)?.toString(), 'bank@3', 'non-EVM state is all there');
      // New EVM writes now go to, and are read from, the Cosmos SS.
      await store.applyChangesets(5, block(5));
      await store.drain();
      t.equal(store.get('evm', 5, EVM_KEY)?.toString(), 'evm@5', 'a new EVM write is served by the Cosmos SS');
      await store.close();
      t.same(listingDiff(evmBefore, treeListing(evmStoreDir(dir))), [], 'data/evm_ss is byte for byte as the split left it');
    });

    t.test(`${layout}: startup log lines of a split start, each exactly once`, async (t) => {
      const dir = t.testdir();
      // A fresh start, then a restart of the same node with history.
      for (const when of ['fresh start', 'restart']) {
        const { logger, records } = memoryLogger();
        const store = await CompositeStateStore.open(dir, splitOn, logger);
        await store.applyChangesets(when === 'fresh start' ? 1 : 2, block(1));
        await store.close();
        const expected: Array<[string, LogRecord['labels']]> = [
          ['StrataDB SS is enabled', { backend }],
          ['StrataDB EVM StateStore optimization is enabled', { separateDBs: separateDbs }],
          ['EVM state store enabled', { dir: evmStoreDir(dir), separateDBs: separateDbs }],
        ];
        for (const [msg, labels] of expected) {
          const found = recordsNamed(records, msg);
          t.equal(found.length, 1, `${when}: "${msg}" is logged once`);
          t.same(found.map((r) => ({ level: r.level, labels: r.labels })), [{ level: 'info', labels }], `${when}: "${msg}" at info with labels ${Object.keys(labels).join(', ')}`);
        }
      }
    });
  }

  t.test(`${backend}: a start without the split logs only "StrataDB SS is enabled"`, async (t) => {
    const dir = t.testdir();
    const { logger, records } = memoryLogger();
    const store = await CompositeStateStore.open(dir, ssConfig(backend, false, true), logger);
    await store.close();
    t.same(
      recordsNamed(records, 'StrataDB SS is enabled').map((r) => ({ level: r.level, labels: r.labels })),
      [{ level: 'info', labels: { backend } }],
      '"StrataDB SS is enabled" once, with the backend',
    );
    t.same(recordsNamed(records, 'StrataDB EVM StateStore optimization is enabled'), [], 'no optimization line');
    t.same(recordsNamed(records, 'EVM state store enabled'), [], 'no EVM state store line');
  });
}

/** The split's checks only guard history: a fresh node may turn it on. */
for (const backend of BACKENDS) {
  t.test(`${backend}: a fresh node starts with the split on and creates data/evm_ss`, async (t) => {
    const dir = t.testdir();
    const store = await CompositeStateStore.open(dir, ssConfig(backend, true, false), memoryLogger().logger);
    t.ok(store.split, 'the split is on');
    await store.close();
    t.same(readdirSync(dir).sort(), ['evm_ss', backend].sort(), 'data/evm_ss sits next to the Cosmos SS');
  });
}
