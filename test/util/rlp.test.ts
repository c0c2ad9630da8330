/**
 * The one-buffer RLP encoder gives @ethereumjs/rlp's bytes for every shape the node encodes:
 * single bytes on both sides of 0x80, strings and lists on both sides of each length-of-length
 * step (55/56, 255/256, 65535/65536), nesting, and integers of every width.
 */
import t from 'tap';
import { encode } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';

import { encodeRlp, rlpListHeader, uintBytes, type RlpInput } from '../../src/util/rlp.js';

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

t.test('a list header is the head of the list encoding', async (t) => {
  for (const payload of [0, 1, 55, 56, 255, 256, 300, 65535, 65536]) {
    // `payload` one-byte items (each its own encoding) take exactly `payload` bytes.
    const list = encode(Array.from({ length: payload }, () => Uint8Array.of(1)));
    t.equal(hex(rlpListHeader(payload)), hex(list.subarray(0, list.length - payload)), `payload ${payload}`);
  }
});
