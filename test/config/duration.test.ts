/**
 * Go durations: the values Go's time.ParseDuration accepts and what they mean, the junk it
 * rejects, the text Duration.String() produces, and parse(format(x)) == x over random values.
 */
import t from 'tap';
import { Duration, DurationSyntaxError, formatDuration, parseDuration } from '../../src/config/index.js';
import { Prng } from '../helpers/prng.js';

const NS = 1n;
const US = 1_000n * NS;
const MS = 1_000n * US;
const S = 1_000n * MS;
const M = 60n * S;
const H = 60n * M;

t.test('parses the forms Go accepts', async (t) => {
  const cases: Array<[string, bigint]> = [
    ['0', 0n],
    ['0s', 0n],
    ['300ms', 300n * MS],
    ['1.5h', H + 30n * M],
    ['2h45m', 2n * H + 45n * M],
    ['1h0m0s', H],
    ['5s', 5n * S],
    ['1.5s', 1500n * MS],
    ['.5s', 500n * MS],
    ['1.s', S],
    ['-1s', -S],
    ['+2m', 2n * M],
    ['10ns', 10n],
    ['7us', 7n * US],
    ['7\u00b5s', 7n * US],
    ['7\u03bcs', 7n * US],
    ['1h1m1s1ms1us1ns', H + M + S + MS + US + NS],
    ['0.000000001s', 1n],
    ['0.0000000019s', 1n], // finer than a nanosecond: truncated
    ['2562047h47m16.854775807s', 2n ** 63n - 1n],
    ['-2562047h47m16.854775808s', -(2n ** 63n)],
  ];
  for (const [text, nanoseconds] of cases) t.equal(parseDuration(text), nanoseconds, text);
});

t.test('rejects junk with DurationSyntaxError', async (t) => {
  const junk = ['', '5', '1.5', 's', 'h1', '1x', '1d', '5 s', ' 5s', '5s ', '--1s', '-', '.s', '1e3s', '1,5s', 'five seconds', '1h 30m', '2562047h47m16.854775808s'];
  for (const text of junk) {
    t.throws(() => parseDuration(text), DurationSyntaxError, JSON.stringify(text));
    try {
      parseDuration(text);
    } catch (error) {
      t.ok(error instanceof DurationSyntaxError && error.text === text && error.message.includes(JSON.stringify(text)), `${JSON.stringify(text)}: error quotes the input`);
    }
  }
});

t.test('formats as Go Duration.String()', async (t) => {
  const cases: Array<[bigint, string]> = [
    [0n, '0s'],
    [1n, '1ns'],
    [999n, '999ns'],
    [1500n, '1.5\u00b5s'],
    [300n * MS, '300ms'],
    [1500n * MS, '1.5s'],
    [5n * S, '5s'],
    [90n * S, '1m30s'],
    [H, '1h0m0s'],
    [H + 30n * M, '1h30m0s'],
    [2n * H + 45n * M, '2h45m0s'],
    [168n * H, '168h0m0s'],
    [-S, '-1s'],
    [H + 1n, '1h0m0.000000001s'],
    [2n ** 63n - 1n, '2562047h47m16.854775807s'],
  ];
  for (const [nanoseconds, text] of cases) t.equal(formatDuration(nanoseconds), text, text);
});

t.test('parse(format(x)) == x for random durations', async (t) => {
  const prng = new Prng(Number(process.env.SEED ?? Date.now() % 2 ** 31));
  t.comment(`seed ${prng.seed}`);
  const scales = [1n, US, MS, S, M, H];
  let failures = 0;
  for (let i = 0; i < 2000; i++) {
    const nanoseconds = BigInt(prng.range(-1_000_000, 1_000_000)) * prng.pick(scales) + BigInt(prng.range(0, 999));
    const text = formatDuration(nanoseconds);
    if (parseDuration(text) !== nanoseconds) {
      failures++;
      t.fail(`${nanoseconds} -> ${text} -> ${parseDuration(text)}`);
    }
  }
  t.equal(failures, 0, '2000 random durations survive format then parse');
});

t.test('Duration wraps nanoseconds', async (t) => {
  const d = Duration.parse('1.5s');
  t.equal(d.nanoseconds, 1500n * MS);
  t.equal(d.toMilliseconds(), 1500);
  t.equal(d.toString(), '1.5s');
  t.equal(Duration.fromMilliseconds(250).toString(), '250ms');
  t.throws(() => new Duration(2n ** 63n), RangeError, 'beyond int64 nanoseconds');
});
