/**
 * JsonBytes writes numbers straight into bytes; its decimal and hex digits must be exactly
 * what `String(n)` and `0x` + `toString(16)` give, at every width and at the edges where it
 * changes method (safe integers, 31 and 32 bits, 2^53).
 */
import t from 'tap';

import { JsonBytes } from '../../src/trace/json-bytes.js';

function written(write: (out: JsonBytes) => void): string {
  const out = new JsonBytes(16);
  out.reserve(128);
  write(out);
  return Buffer.from(out.view()).toString('latin1');
}

/** A deterministic spread of magnitudes: every power of two and ten, their neighbours, and a walk between them. */
function samples(maxBits: number): bigint[] {
  const values = new Set<bigint>([0n]);
  for (let bits = 0; bits <= maxBits; bits++) {
    const p = 1n << BigInt(bits);
    for (const v of [p - 1n, p, p + 1n]) if (v >= 0n) values.add(v);
  }
  for (let p = 1n; p < 1n << BigInt(maxBits); p *= 10n) for (const v of [p - 1n, p, p + 1n]) values.add(v);
  let x = 0x9e3779b97f4a7c15n;
  for (let i = 0; i < 2000; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    values.add(x >> BigInt(64 - 1 - (i % maxBits)));
  }
  return [...values];
}

t.test('uint writes the decimal digits of numbers and bigints', async (t) => {
  let wrong = 0;
  for (const value of samples(53)) {
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    if (written((out) => out.uint(Number(value))) !== value.toString()) wrong++;
    if (written((out) => out.uint(value)) !== value.toString()) wrong++;
  }
  t.equal(wrong, 0, 'every safe integer, as a number and as a bigint');
  for (const value of [2n ** 53n, 2n ** 64n - 1n, 2n ** 256n - 1n]) t.equal(written((out) => out.uint(value)), value.toString(), `bigint ${value}`);
});

t.test('quantity writes a quoted minimal 0x hex quantity', async (t) => {
  let wrong = 0;
  for (const value of [...samples(64), 2n ** 255n, 2n ** 256n - 1n]) {
    if (written((out) => out.quantity(value)) !== `"0x${value.toString(16)}"`) wrong++;
  }
  t.equal(wrong, 0, 'every sample up to 64 bits, and 256-bit words');
  t.equal(written((out) => out.quantity(0n)), '"0x0"');
  t.equal(written((out) => out.quantity(0xffffffffn)), '"0xffffffff"');
  t.equal(written((out) => out.quantity(0x100000000n)), '"0x100000000"');
});

t.test('fields follow one another without gaps', async (t) => {
  t.equal(
    written((out) => {
      out.uint(1200);
      out.byte(0x2c);
      out.quantity(0x80000000n);
      out.byte(0x2c);
      out.uint(7n);
    }),
    '1200,"0x80000000",7',
  );
});
