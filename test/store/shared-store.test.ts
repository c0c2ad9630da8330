/**
 * Stores shared with other threads of the process: share() files a store under a token,
 * attach(token) borrows it — in another worker thread too — reading the same data; a borrower
 * never closes the store, and once the owner closes it, borrowers' reads fail as closed.
 */
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { Logger } from '../../src/log/logger.js';
import { CompositeStateStore, DEFAULT_STATE_STORE_CONFIG, PlainKv, SharedStateReader } from '../../src/store/index.js';
import { StoreClosedError } from '../../src/store/errors.js';

const quiet = new Logger({ level: 'error', sink: () => undefined });
const b = (s: string): Buffer => Buffer.from(s, 'latin1');

t.test('a borrowed plain KV store reads the owner\'s data and leaves it open when closed', async (t) => {
  const owner = await PlainKv.open(t.testdir());
  await owner.write([{ key: b('k'), value: b('v1') }], { sync: false });
  const token = owner.share();
  t.equal(owner.share(), token, 'sharing again gives the same token');
  const borrowed = PlainKv.attach(token);
  t.same(borrowed.get(b('k')), b('v1'));
  await owner.write([{ key: b('k'), value: b('v2') }], { sync: false });
  t.same(borrowed.get(b('k')), b('v2'), 'the borrower sees later writes: it is the same store');
  await borrowed.close();
  t.same(owner.get(b('k')), b('v2'), 'closing the borrower leaves the owner open');
  const again = PlainKv.attach(token);
  await owner.close();
  t.throws(() => again.get(b('k')), StoreClosedError, 'once the owner closed, a borrower reads nothing');
  t.throws(() => PlainKv.attach(token), StoreClosedError, 'and the token is withdrawn');
  t.throws(() => PlainKv.attach(987654), /no open .* is shared under that token/);
});

t.test('the SS is read through its share from a worker thread, at a version', async (t) => {
  const ss = await CompositeStateStore.open(t.testdir(), { ...DEFAULT_STATE_STORE_CONFIG, evmSsSplit: true }, quiet);
  t.teardown(() => ss.close());
  await ss.applyChangesets(1, [
    { name: 'bank', pairs: [{ key: b('alice'), value: b('100') }] },
    { name: 'evm', pairs: [{ key: b('slot'), value: b('a') }] },
  ]);
  await ss.applyChangesets(2, [{ name: 'evm', pairs: [{ key: b('slot'), value: b('b') }] }]);
  await ss.drain();
  const share = ss.share();
  t.ok(share.evm, 'a split SS shares both sides');
  const local = SharedStateReader.attach(share);
  t.same(local.get('evm', 1, b('slot')), b('a'));
  t.same(local.get('evm', 2, b('slot')), b('b'));
  t.equal(Number(local.latestVersion()), 2);
  await local.close();

  const storeIndex = new URL('../../src/store/index.ts', import.meta.url).href;
  const source = `
    import('tsx/esm/api').then(async ({ register }) => {
      register();
      const { parentPort, workerData } = await import('node:worker_threads');
      const { SharedStateReader } = await import(${JSON.stringify(storeIndex)});
      const reader = SharedStateReader.attach(workerData);
      const read = (store, version, key) => reader.get(store, version, Buffer.from(key))?.toString('latin1') ?? null;
      parentPort.postMessage([read('bank', 2, 'alice'), read('evm', 1, 'slot'), read('evm', 2, 'slot'), read('evm', 2, 'none')]);
      await reader.close();
    });`;
  const worker = new Worker(source, { eval: true, workerData: share });
  const answer = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  t.same(answer, ['100', 'a', 'b', null], 'a worker thread reads both sides of the split SS at each version');
  t.same(ss.get('bank', 2, b('alice')), b('100'), 'the worker letting go left the SS open');
});
