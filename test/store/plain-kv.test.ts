/** The typed PlainKv wrapper over the native store. */
import t from 'tap';
import { PackedKvOps, PlainKv, prefixEnd } from '../../src/store/index.js';
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

t.test('a packed write applies its puts and deletes atomically, as write does', async (t) => {
  const kv = await PlainKv.open(t.testdir());
  await kv.write([{ key: b('gone'), value: b('x') }], { sync: false });
  const ops = new PackedKvOps(16); // grows past its first buffer
  ops.put(b('a'), b('1'));
  ops.putPrefixed(0x62, b('key'), Buffer.alloc(300, 7));
  ops.put(b('empty'), new Uint8Array());
  ops.put(b('gone'), null);
  await kv.writePacked(ops, { sync: true });
  t.same(kv.get(b('a')), b('1'));
  t.same(kv.get(b('bkey')), Buffer.alloc(300, 7));
  t.same(kv.get(b('empty')), Buffer.alloc(0));
  t.equal(kv.get(b('gone')), undefined);
  await kv.close();
});

t.test('a malformed packed buffer is refused and writes nothing', async (t) => {
  const kv = await PlainKv.open(t.testdir());
  const handle = (kv as unknown as { handle: { writePacked(packed: Uint8Array, sync: boolean): Promise<void> } }).handle;
  const word = (n: number) => {
    const out = Buffer.alloc(4);
    out.writeUInt32LE(n >>> 0);
    return out;
  };
  const good = Buffer.concat([word(1), b('k'), word(1), b('v')]);
  const cases: Array<[string, Buffer, RegExp]> = [
    ['a truncated key length', Buffer.concat([good, Buffer.from([1, 0])]), /key length at offset 10 runs past the end/],
    ['a key past the end', Buffer.concat([good, word(5), b('ab')]), /key of 5 bytes at offset 14 runs past the end/],
    ['a missing value', Buffer.concat([good, word(1), b('x')]), /value length at offset 15 runs past the end/],
    ['a value past the end', Buffer.concat([good, word(1), b('x'), word(9), b('abc')]), /value of 9 bytes at offset 19 runs past the end/],
    ['a deleted key', Buffer.concat([word(0xffffffff), b('k')]), /key of 4294967295 bytes/],
  ];
  for (const [name, packed, message] of cases) {
    t.throws(() => handle.writePacked(packed, true), message, name);
  }
  t.equal(kv.get(b('k')), undefined, 'none of the refused batches was written');
  await kv.close();
});
