/**
 * Pruning of a split node (digest §5.8, spec check 3): a pass of the pruning manager with
 * `ss-keep-recent = N` prunes both sides to the same height, so their earliest versions stay
 * equal (latest − N + 1) and a restart passes check 3; reads below the floor find nothing,
 * reads at and above it are unchanged; keep-recent 0 never prunes. The manager runs on a real
 * short interval (no fake clock), with the jitter pinned to 0.
 */
import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryLogger, type LogRecord } from '../../src/log/logger.js';
import {
  CompositeStateStore,
  PruningManager,
  SplitSafetyCheckError,
  type Backend,
  type NamedChangeset,
  type StateStoreConfig,
} from '../../src/store/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { address, evmKey, recordsNamed, slot, ssConfig } from './fixtures/helpers.js';

const PRUNED = 'Pruned state store till version';
const STOPPED = 'Pruning manager stopped';
const BANK_SHARED = Buffer.from('bank/shared');
const EVM_SHARED = evmKey.nonce(address(1));

function bankUnique(v: number): Buffer {
  return Buffer.from(`bank/only/${v}`);
}
function evmUnique(v: number): Buffer {
  return evmKey.storage(address(100 + v), slot(v));
}

/** Block v rewrites one shared key per side and adds one key of its own per side. */
function block(v: number): NamedChangeset[] {
  return [
    { name: 'bank', pairs: [{ key: BANK_SHARED, value: Buffer.from(`bank@${v}`) }, { key: bankUnique(v), value: Buffer.from(`bank-only@${v}`) }] },
    { name: 'evm', pairs: [{ key: EVM_SHARED, value: Buffer.from(`evm@${v}`) }, { key: evmUnique(v), value: Buffer.from(`evm-only@${v}`) }] },
  ];
}

async function writeBlocks(store: CompositeStateStore, from: number, to: number): Promise<void> {
  for (let v = from; v <= to; v++) await store.applyChangesets(v, block(v));
  await store.drain();
}

/** Every value a reader can see at `version`, on both sides, keyed for comparison. */
function readAll(store: CompositeStateStore, version: number, upTo: number): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  out[`bank shared @${version}`] = store.get('bank', version, BANK_SHARED)?.toString();
  out[`evm shared @${version}`] = store.get('evm', version, EVM_SHARED)?.toString();
  for (let v = 1; v <= upTo; v++) {
    out[`bank only ${v} @${version}`] = store.get('bank', version, bankUnique(v))?.toString();
    out[`evm only ${v} @${version}`] = store.get('evm', version, evmUnique(v))?.toString();
  }
  return out;
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

function earliest(store: CompositeStateStore): { cosmos: bigint; evm: bigint; composite: bigint } {
  return {
    cosmos: BigInt(store.cosmos.earliestVersion()),
    evm: BigInt(store.evm?.earliestVersion() ?? -1),
    composite: BigInt(store.earliestVersion()),
  };
}

async function expectReopens(t: Test, dir: string, config: StateStoreConfig, floor: bigint): Promise<void> {
  let store: CompositeStateStore;
  try {
    store = await CompositeStateStore.open(dir, config, memoryLogger().logger);
  } catch (error) {
    t.fail(`the restart passes check 3, but: ${error instanceof SplitSafetyCheckError ? `check ${error.check}: ` : ''}${String(error)}`);
    return;
  }
  t.pass('the restart passes the safety checks');
  t.same(earliest(store), { cosmos: floor, evm: floor, composite: floor }, `after the restart both sides start at ${floor}`);
  await store.close();
}

function prunedLines(records: readonly LogRecord[]): LogRecord[] {
  return recordsNamed(records, PRUNED);
}

for (const backend of BACKENDS) {
  for (const separateDbs of [false, true]) {
    const layout = `${backend}, separateDbs=${separateDbs}`;
    // The composite's own manager stays off; each test drives the one it needs.
    const config = ssConfig(backend, true, separateDbs);

    t.test(`${layout}: a pass with keep-recent 5 prunes both sides to latest − 4`, async (t) => {
      const dir = t.testdir();
      const store = await CompositeStateStore.open(dir, config, memoryLogger().logger);
      await writeBlocks(store, 1, 20);
      const before = Object.assign({}, ...[16, 17, 18, 19, 20].map((v) => readAll(store, v, 20))) as Record<string, string | undefined>;
      t.equal(before['bank only 3 @16'], 'bank-only@3', 'sanity: a key written once at 3 is visible at 16 before pruning');

      const { logger, records } = memoryLogger();
      const manager = new PruningManager(store, { keepRecent: 5, intervalSeconds: 0.05, random: () => 0 }, logger);
      t.ok(manager.enabled, 'the manager is enabled');
      manager.start();
      await waitFor('a prune pass', () => prunedLines(records).length > 0);
      await manager.stop();

      t.same(earliest(store), { cosmos: 16n, evm: 16n, composite: 16n }, 'both sides start at 20 − 5 + 1 = 16');
      const lines = prunedLines(records);
      t.ok(lines.length >= 1, 'the pass is logged');
      const first = lines[0];
      t.equal(first?.level, 'info', 'at info');
      t.equal(String(first?.labels.version), '15', 'with label version = latest − keep-recent = 15');
      t.match(String(first?.labels.took), /^\d+ms$/, 'and label took, a duration');
      t.same(recordsNamed(records, STOPPED).map((r) => r.level), ['info'], `stop() logs "${STOPPED}" once`);

      for (const v of [15, 10, 1]) {
        const below = readAll(store, v, 20);
        t.same(Object.entries(below).filter(([, value]) => value !== undefined), [], `nothing is readable at version ${v}, below the floor`);
      }
      const after = Object.assign({}, ...[16, 17, 18, 19, 20].map((v) => readAll(store, v, 20))) as Record<string, string | undefined>;
      t.same(after, before, 'every read at versions 16..20 is unchanged, on both sides');
      await store.close();
      await expectReopens(t, dir, config, 16n);
    });

    t.test(`${layout}: keep-recent 0 never prunes`, async (t) => {
      const dir = t.testdir();
      const { logger, records } = memoryLogger();
      // Keep-recent 0 with a short interval: the composite's own manager too.
      const store = await CompositeStateStore.open(dir, ssConfig(backend, true, separateDbs, { keepRecent: 0, pruneIntervalSeconds: 0.05 }), logger);
      await writeBlocks(store, 1, 10);
      const manager = new PruningManager(store, { keepRecent: 0, intervalSeconds: 0.05, random: () => 0 }, logger);
      t.notOk(manager.enabled, 'a manager with keep-recent 0 is disabled');
      manager.start();
      t.equal(await manager.pruneOnce(), undefined, 'even a forced pass prunes nothing');
      // Several intervals go by.
      await sleep(400);
      await manager.stop();
      t.same(prunedLines(records), [], 'no pass was logged');
      t.same(earliest(store), { cosmos: 0n, evm: 0n, composite: 0n }, 'both sides still start at 0');
      t.same([store.get('bank', 1, BANK_SHARED)?.toString(), store.get('evm', 1, EVM_SHARED)?.toString()], ['bank@1', 'evm@1'], 'version 1 is readable on both sides');
      await store.close();
      t.same(prunedLines(records), [], 'nothing was pruned up to the close');
    });

    t.test(`${layout}: the composite's own manager (ss-keep-recent 3, ss-prune-interval 0.05 s) keeps both sides level`, async (t) => {
      const dir = t.testdir();
      const { logger, records } = memoryLogger();
      const withPruning = ssConfig(backend, true, separateDbs, { keepRecent: 3, pruneIntervalSeconds: 0.05 });
      const store = await CompositeStateStore.open(dir, withPruning, logger);
      await writeBlocks(store, 1, 12);
      // A pass may have run mid-way; wait for one that saw all 12 blocks.
      await waitFor('a pass to version 9', () => prunedLines(records).some((r) => String(r.labels.version) === '9'));
      t.same(earliest(store), { cosmos: 10n, evm: 10n, composite: 10n }, 'both sides start at 12 − 3 + 1 = 10');
      t.equal(store.get('evm', 9, EVM_SHARED), undefined, 'evm below the floor is gone');
      t.equal(store.get('bank', 9, BANK_SHARED), undefined, 'bank below the floor is gone');
      t.same([store.get('bank', 10, BANK_SHARED)?.toString(), store.get('evm', 10, EVM_SHARED)?.toString()], ['bank@10', 'evm@10'], 'version 10 is whole');
      t.same([store.get('bank', 12, bankUnique(2))?.toString(), store.get('evm', 12, evmUnique(2))?.toString()], ['bank-only@2', 'evm-only@2'], 'a key last written below the floor keeps its value');
      await store.close();
      t.equal(recordsNamed(records, STOPPED).length, 1, `closing the composite stops its manager: "${STOPPED}"`);
      // Reopened without pruning, so no pass moves the floor under the check.
      await expectReopens(t, dir, config, 10n);
    });
  }
}
