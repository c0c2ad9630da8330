/** The typed PlainKv wrapper over the native store. */
import t from 'tap';
import { PlainKv, prefixEnd } from '../../src/store/index.js';
import { InvalidArgumentError, StoreClosedError, StoreIoError } from '../../src/store/errors.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const keys = (entries: { key: Buffer }[]): string[] => entries.map((e) => e.key.toString('latin1'));

t.test('writes, reads, deletes and reopens', async (t) => {
  const dir = t.testdir();
  const kv = await PlainKv.open(dir);
  await kv.write([{ key: b('a'), value: b('1') }, { key: b('b'), value: b('2') }], { sync: true });
  t.same(kv.get(b('a')), b('1'));
  t.equal(kv.get(b('zz')), undefined);
  t.same(kv.getMany([b('b'), b('x'), b('a')]), [b('2'), undefined, b('1')]);
  await kv.write([{ key: b('a'), value: null }], { sync: false });
  t.equal(kv.get(b('a')), undefined);
  await kv.close();
  const reopened = await PlainKv.open(dir);
  t.same(reopened.get(b('b')), b('2'));
  await reopened.close();
});

t.test('ranges forward, reverse, by prefix and with a limit', async (t) => {
  const kv = await PlainKv.open(t.testdir());
  await kv.write(['a', 'b1', 'b2', 'b3', 'c'].map((k) => ({ key: b(k), value: b('v') })), { sync: false });
  t.same(keys(kv.range({ start: b('b'), end: b('c') })), ['b1', 'b2', 'b3']);
  t.same(keys(kv.range({ start: b('b'), end: b('c'), reverse: true })), ['b3', 'b2', 'b1']);
  t.same(keys(kv.prefix(b('b'), { reverse: true, limit: 2 })), ['b3', 'b2']);
  t.same(keys(kv.range()), ['a', 'b1', 'b2', 'b3', 'c']);
  await kv.close();
});

t.test('prefixEnd increments the last byte below 0xff', async (t) => {
  t.same(prefixEnd(Buffer.from([1, 0xff])), Buffer.from([2]));
  t.same(prefixEnd(Buffer.from([1, 2])), Buffer.from([1, 3]));
  t.equal(prefixEnd(Buffer.from([0xff, 0xff])), undefined);
});

t.test('errors are typed', async (t) => {
  const dir = t.testdir();
  const kv = await PlainKv.open(dir);
  await t.rejects(kv.write([{ key: b(''), value: b('x') }], { sync: false }), InvalidArgumentError);
  await t.rejects(PlainKv.open(dir), StoreIoError, 'a second open of a locked store fails');
  await kv.close();
  t.throws(() => kv.get(b('a')), StoreClosedError);
  await kv.close(); // idempotent
});
