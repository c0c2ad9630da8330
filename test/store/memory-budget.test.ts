/** One RocksDB memory budget shared by the stores of a process (`[storage]`). */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { CommitStore, MvccStore, PlainKv, createMemoryBudget } from '../../src/store/index.js';
import { InvalidArgumentError } from '../../src/store/errors.js';
import { scBlock } from '../sc/fixtures/sc-workload.js';

const MIB = 1024 * 1024;
const value = Buffer.alloc(1024, 7);
const key = (n: number): Buffer => Buffer.from(`key-${String(n).padStart(8, '0')}`);

t.test('every store opened with a budget counts its memtables in it', async (t) => {
  const budget = createMemoryBudget({ blockCacheBytes: 8 * MIB, writeBufferBytes: 32 * MIB });
  t.same(budget.usage().blockCacheCapacity, 8 * MIB);
  t.same(budget.usage().writeBufferCapacity, 32 * MIB);
  const before = budget.usage().memtableBytes;

  const kv = await PlainKv.open(t.testdir(), { memoryBudget: budget });
  await kv.write(Array.from({ length: 1000 }, (_, n) => ({ key: key(n), value })), { sync: false });
  const afterKv = budget.usage().memtableBytes;
  t.ok(afterKv - before >= 1000 * value.length, `the block store's 1 MB is in the budget (${afterKv - before} bytes)`);

  const ss = await MvccStore.open(t.testdir() + '-ss', { memoryBudget: budget, asyncWriteBuffer: 0 });
  await ss.applyChangesets(1, [{ name: 'bank', pairs: Array.from({ length: 1000 }, (_, n) => ({ key: key(n), value })) }]);
  const afterSs = budget.usage().memtableBytes;
  t.ok(afterSs - afterKv >= 1000 * value.length, `the state store's 1 MB is in the budget (${afterSs - afterKv} bytes)`);

  const sc = await CommitStore.open(t.testdir() + '-sc', { snapshotInterval: 0, memoryBudget: budget });
  sc.applyChangesets(scBlock(1));
  await sc.commit();
  sc.applyChangesets(scBlock(2));
  await sc.commit();
  t.ok(budget.usage().memtableBytes > afterSs, 'FlatKV (the SC\'s EVM rows) writes into the same budget');

  // A store without the budget keeps its own memory: the budget does not move.
  const own = await PlainKv.open(t.testdir() + '-own');
  const shared = budget.usage().memtableBytes;
  await own.write(Array.from({ length: 1000 }, (_, n) => ({ key: key(n), value })), { sync: false });
  t.equal(budget.usage().memtableBytes, shared, 'a store opened without it is not counted');

  for (const store of [kv, ss, sc, own]) await store.close();
});

t.test('the memtable limit holds: writes beyond it flush, and reads then use the shared cache', async (t) => {
  const budget = createMemoryBudget({ blockCacheBytes: 4 * MIB, writeBufferBytes: 2 * MIB });
  const kv = await PlainKv.open(t.testdir(), { memoryBudget: budget });
  // 16 MB through a 2 MiB limit, in 256 KB batches.
  for (let batch = 0; batch < 64; batch++) {
    await kv.write(Array.from({ length: 256 }, (_, i) => ({ key: key(batch * 256 + i), value })), { sync: false });
  }
  // Flushes run on background threads; on a busy machine they can take a while to finish, and a
  // flushed memtable is freed once no read holds the version that lists it (hence a read per
  // round, as a running node's reads do). Without the limit all 16 MB would stay in the (64 MiB)
  // memtable for good.
  // The limit is enforced on writes: when they stop, the store may keep one unflushed memtable of
  // its share (limit / 8) on top of it.
  const allowed = 2 * MIB + (2 * MIB) / 8;
  let settled = budget.usage().memtableBytes;
  for (let i = 0; i < 600 && settled > allowed; i++) {
    await sleep(100);
    kv.get(key(0));
    settled = budget.usage().memtableBytes;
  }
  t.ok(settled <= allowed, `memtables come back within the 2 MiB limit (${(settled / MIB).toFixed(2)} MiB after 16 MB written)`);

  const wrong = Array.from({ length: 64 * 256 }, (_, n) => n).filter((n) => !value.equals(kv.get(key(n)) ?? Buffer.alloc(0)));
  t.same(wrong, [], 'every key reads back its value');
  const usage = budget.usage();
  t.ok(usage.blockCacheBytes > 0, `flushed data is read through the shared cache (${usage.blockCacheBytes} bytes)`);
  t.ok(usage.blockCacheBytes <= 4 * MIB, 'and the cache stays within its capacity');
  await kv.close();
});

t.test('a budget below 1 MiB is refused', async (t) => {
  t.throws(() => createMemoryBudget({ blockCacheBytes: 1024, writeBufferBytes: 8 * MIB }), InvalidArgumentError);
  t.throws(() => createMemoryBudget({ blockCacheBytes: 8 * MIB, writeBufferBytes: 0 }), InvalidArgumentError);
});
