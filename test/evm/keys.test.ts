/** The big-endian integer codec of EVM state values, against a plain hex reference, at every width and size. */
import t from 'tap';
import { decodeUint, encodeUint } from '../../src/evm/keys.js';

/** `value` as `width` big-endian bytes, the obvious way. */
function reference(value: bigint, width: number): Uint8Array {
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(2 * width, '0'), 'hex'));
}

/** Values of every byte length up to `width`: all-ones, a single top bit, and pseudo-random ones. */
function samples(width: number): bigint[] {
  const out = [0n, 1n, 255n, 256n, BigInt(Number.MAX_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER) + 1n];
  let seed = 0x9e3779b97f4a7c15n;
  for (let bytes = 1; bytes <= width; bytes++) {
    const bits = BigInt(8 * bytes);
    out.push((1n << bits) - 1n, 1n << (bits - 1n));
    for (let k = 0; k < 8; k++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      out.push(((seed << 192n) | (seed << 128n) | (seed << 64n) | seed) & ((1n << bits) - 1n));
    }
  }
  return out.filter((v) => v < 1n << BigInt(8 * width));
}

t.test('encodeUint writes the same bytes as the hex reference', async (t) => {
  let checked = 0;
  for (const width of [1, 2, 6, 7, 8, 20, 32]) {
    for (const value of samples(width)) {
      const encoded = encodeUint(value, width);
      if (Buffer.compare(encoded, reference(value, width)) !== 0) t.fail(`${value} in ${width} bytes: ${Buffer.from(encoded).toString('hex')}`);
      checked++;
    }
  }
  t.ok(checked > 700, `${checked} values checked`);
});

t.test('decodeUint reads back every encoding, with or without leading zeros', async (t) => {
  let checked = 0;
  for (const width of [1, 6, 7, 8, 13, 32]) {
    for (const value of samples(width)) {
      const bytes = reference(value, width);
      if (decodeUint(bytes) !== value) t.fail(`${Buffer.from(bytes).toString('hex')} read as ${decodeUint(bytes)}`);
      const trimmed = bytes.subarray(bytes.findIndex((b) => b !== 0) >>> 0);
      if (decodeUint(trimmed) !== value) t.fail(`trimmed ${Buffer.from(trimmed).toString('hex')} read as ${decodeUint(trimmed)}`);
      checked++;
    }
  }
  t.ok(checked > 600, `${checked} values checked`);
  t.equal(decodeUint(undefined), 0n);
  t.equal(decodeUint(null), 0n);
  t.equal(decodeUint(new Uint8Array()), 0n);
  t.equal(decodeUint(new Uint8Array(32)), 0n, 'all zeros');
  const view = new Uint8Array([9, 9, 0, 1, 2, 9]).subarray(2, 5);
  t.equal(decodeUint(view), 0x0102n, 'a view reads only its own bytes');
});

t.test('encodeUint refuses what does not fit', async (t) => {
  t.throws(() => encodeUint(-1n, 32), RangeError);
  t.throws(() => encodeUint(256n, 1), RangeError, 'a safe integer one byte too wide');
  t.throws(() => encodeUint(1n << 64n, 8), RangeError, 'a big value one byte too wide');
  t.throws(() => encodeUint(1n << 256n, 32), RangeError);
  t.same([...encodeUint((1n << 256n) - 1n, 32)], new Array(32).fill(255));
});
