/**
 * The one-buffer RLP encoder gives @ethereumjs/rlp's bytes for every shape the node encodes:
 * single bytes on both sides of 0x80, strings and lists on both sides of each length-of-length
 * step (55/56, 255/256, 65535/65536), nesting, and integers of every width. The decoder gives
 * @ethereumjs/rlp's items as views of its input, and refuses what that decoder refuses (and an
 * empty input, which it reads as an empty string).
 */
import t from 'tap';
import { decode, encode } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';

import { RlpDecodeError, decodeRlp, encodeFlatListInto, encodeRlp, rlpListHeader, uintBytes, type RlpInput } from '../../src/util/rlp.js';

let seed = 7;
function random(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
}

function bytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

function randomItem(depth: number): RlpInput {
  if (depth > 3 || random() < 0.6) {
    const length = [0, 1, 1, 2, 55, 56, 255, 256, 300][Math.floor(random() * 9)]!;
    return bytes(length);
  }
  return Array.from({ length: Math.floor(random() * 8) }, () => randomItem(depth + 1));
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

t.test('byte strings and lists at every header boundary', async (t) => {
  const cases: Array<[string, RlpInput]> = [
    ['empty string', new Uint8Array()],
    ['0x00', Uint8Array.of(0)],
    ['0x7f', Uint8Array.of(0x7f)],
    ['0x80', Uint8Array.of(0x80)],
    ['empty list', []],
    ['55 bytes', bytes(55)],
    ['56 bytes', bytes(56)],
    ['255 bytes', bytes(255)],
    ['256 bytes', bytes(256)],
    ['65535 bytes', bytes(65535)],
    ['65536 bytes', bytes(65536)],
    ['list of 55 payload bytes', [bytes(54)]],
    ['list of 56 payload bytes', [bytes(55)]],
    ['list of 1,400 transactions', Array.from({ length: 1400 }, () => bytes(115))],
    ['nested', [[], [[]], [Uint8Array.of(1), [Uint8Array.of(0x80)]]]],
  ];
  for (const [name, item] of cases) t.equal(hex(encodeRlp(item)), hex(encode(item as Uint8Array[])), name);
});

t.test('random nested items', async (t) => {
  let mismatches = 0;
  for (let i = 0; i < 2000; i++) {
    const item = randomItem(0);
    if (hex(encodeRlp(item)) !== hex(encode(item as Uint8Array[]))) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('integers as minimal big-endian bytes', async (t) => {
  const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 32n, 2n ** 48n - 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n, 2n ** 255n + 3n];
  for (const value of values) {
    t.equal(hex(uintBytes(value)), hex(bigIntToUnpaddedBytes(value)), `${value}`);
    if (value <= BigInt(Number.MAX_SAFE_INTEGER)) t.equal(hex(uintBytes(Number(value))), hex(bigIntToUnpaddedBytes(value)), `${value} as a number`);
  }
});

t.test('integer items encode as @ethereumjs/rlp encodes numbers and bigints', async (t) => {
  const values = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n, 2n ** 255n + 3n];
  for (const value of values) {
    t.equal(hex(encodeRlp(value)), hex(encode(value)), `${value}`);
    t.equal(hex(encodeRlp([value, Uint8Array.of(9), [value]])), hex(encode([value, Uint8Array.of(9), [value]])), `${value} in lists`);
    if (value <= BigInt(Number.MAX_SAFE_INTEGER)) t.equal(hex(encodeRlp(Number(value))), hex(encode(Number(value))), `${value} as a number`);
  }
  t.throws(() => encodeRlp([1, -1]), RangeError, 'a negative number is refused');
  t.throws(() => encodeRlp(-1n), RangeError, 'a negative bigint is refused');
  t.throws(() => encodeRlp(1.5), RangeError, 'a fraction is refused');
});

t.test('a flat list written into scratch space gives encodeRlp\'s bytes', async (t) => {
  const scratch = Buffer.alloc(300);
  const scalars: Array<Uint8Array | number | bigint> = [0, 1, 0x7f, 0x80, 2 ** 53 - 1, 0n, 0x80n, 2n ** 53n, 2n ** 255n + 3n, Uint8Array.of(), Uint8Array.of(0), Uint8Array.of(0x80), bytes(20), bytes(55)];
  let mismatches = 0;
  let lists = 0;
  for (let n = 0; n < 2_000; n++) {
    const items = Array.from({ length: Math.floor(random() * 9) }, () => scalars[Math.floor(random() * scalars.length)]!);
    if (encodeRlp(items).length > 257) continue;
    lists++;
    if (hex(encodeFlatListInto(scratch, items)) !== hex(encode(items))) mismatches++;
  }
  t.ok(lists > 1_000, `${lists} lists compared`);
  t.equal(mismatches, 0, 'every list encodes as @ethereumjs/rlp encodes it');
  // Payloads on both sides of the short-list limit (55/56) and at the top of the long form.
  for (const payload of [0, 55, 56, 255]) {
    const items = Array.from({ length: payload }, () => 1);
    t.equal(hex(encodeFlatListInto(scratch, items)), hex(encode(items)), `payload ${payload}`);
  }
  t.throws(() => encodeFlatListInto(scratch, Array.from({ length: 256 }, () => 1)), RangeError, 'a payload of 256 bytes is refused');
  t.throws(() => encodeFlatListInto(Buffer.alloc(20), [bytes(20)]), RangeError, 'a list larger than its scratch is refused');
  t.throws(() => encodeFlatListInto(Buffer.alloc(20), Array.from({ length: 19 }, () => 1)), RangeError, 'so is one of single bytes');
  t.throws(() => encodeFlatListInto(scratch, [bytes(56)]), RangeError, 'a long byte string is refused');
  t.throws(() => encodeFlatListInto(scratch, [-1]), RangeError, 'a negative integer is refused');
});

t.test('a list header is the head of the list encoding', async (t) => {
  for (const payload of [0, 1, 55, 56, 255, 256, 300, 65535, 65536]) {
    // `payload` one-byte items (each its own encoding) take exactly `payload` bytes.
    const list = encode(Array.from({ length: payload }, () => Uint8Array.of(1)));
    t.equal(hex(rlpListHeader(payload)), hex(list.subarray(0, list.length - payload)), `payload ${payload}`);
  }
});

/** The item as nested arrays of hex strings, for deep comparison. */
function shape(item: unknown): unknown {
  return item instanceof Uint8Array ? hex(item) : (item as unknown[]).map(shape);
}

t.test('decoding gives @ethereumjs/rlp\'s items, as views of the input', async (t) => {
  let mismatches = 0;
  for (let i = 0; i < 2000; i++) {
    const encoded = encodeRlp(randomItem(0));
    if (JSON.stringify(shape(decodeRlp(encoded))) !== JSON.stringify(shape(decode(encoded)))) mismatches++;
  }
  t.equal(mismatches, 0, '2,000 random nested items');
  const txs = Array.from({ length: 1400 }, () => bytes(115));
  const block = encodeRlp([txs, bytes(64)]);
  const decoded = decodeRlp(block) as [Uint8Array[], Uint8Array];
  t.equal(decoded[0].length, 1400);
  t.ok(decoded[0].every((tx, i) => tx.buffer === block.buffer && hex(tx) === hex(txs[i]!)), 'each transaction is a view of the block bytes');
  t.equal(hex(decodeRlp(Uint8Array.of(0x7f)) as Uint8Array), '7f', 'a single byte below 0x80 is itself');
  t.same(decodeRlp(Uint8Array.of(0xc0)), [], 'empty list');
  t.equal((decodeRlp(Uint8Array.of(0x80)) as Uint8Array).length, 0, 'empty string');
});

t.test('decoding refuses what is not one canonical item, as @ethereumjs/rlp does', async (t) => {
  const bad: Array<[string, number[]]> = [
    ['bytes after the item', [0x01, 0x02]],
    ['a string longer than the input', [0x83, 0x01, 0x02]],
    ['a list longer than the input', [0xc3, 0x01, 0x02]],
    ['an item longer than its list', [0xc2, 0x82, 0x01, 0x02]],
    ['a single byte below 0x80 with a header', [0x81, 0x05]],
    ['a long form for a short string', [0xb8, 0x05, 1, 2, 3, 4, 5]],
    ['a long form for a short list', [0xf8, 0x01, 0x01]],
    ['a length with a leading zero', [0xb9, 0x00, 0x38, ...new Array(56).fill(1)]],
    ['length bytes past the end', [0xbb, 0x01]],
  ];
  for (const [name, bytes] of bad) {
    const input = Uint8Array.from(bytes);
    t.throws(() => decode(input), `@ethereumjs/rlp refuses ${name}`);
    t.throws(() => decodeRlp(input), RlpDecodeError, name);
  }
  // @ethereumjs/rlp reads no bytes at all as an empty string; no bytes hold no item.
  t.throws(() => decodeRlp(new Uint8Array()), RlpDecodeError, 'empty input');
});
