/**
 * Go-style durations ("300ms", "1.5h", "2h45m", "0s"), the format Tendermint and Cosmos
 * configuration files use. Values are held exactly, in nanoseconds, within Go's int64 range.
 */

const NS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // micro sign
  ['\u03bcs', 1_000n], // Greek mu
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const NS_PER_SECOND = 1_000_000_000n;
const NS_PER_MINUTE = 60n * NS_PER_SECOND;
const NS_PER_HOUR = 60n * NS_PER_MINUTE;
/** Go's time.Duration is an int64 of nanoseconds. */
const MAX_NS = 2n ** 63n - 1n;
const MIN_NS = -(2n ** 63n);

/** A duration string could not be parsed; `text` is the input. */
export class DurationSyntaxError extends Error {
  /** The rejected input. */
  readonly text: string;
  /** What is wrong with it, e.g. `unknown unit "d"`. */
  readonly reason: string;
  constructor(text: string, reason: string) {
    super(`invalid duration ${JSON.stringify(text)}: ${reason}`);
    this.name = new.target.name;
    this.text = text;
    this.reason = reason;
  }
}

/** Parses a Go duration ("1h30m", "1.5s", "-2ms", "0") into nanoseconds. */
export function parseDuration(text: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw new DurationSyntaxError(text, 'empty; write a number followed by a unit: ns, us, ms, s, m or h');

  let total = 0n;
  while (rest !== '') {
    const term = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(rest);
    const whole = term?.[1] ?? '';
    const fraction = term?.[2] ?? '';
    const unit = term?.[3] ?? '';
    if (term === null || (whole === '' && fraction === '')) {
      throw new DurationSyntaxError(text, `expected a number at ${JSON.stringify(rest)}`);
    }
    if (unit === '') throw new DurationSyntaxError(text, `missing unit after ${JSON.stringify(term[0])}; units are ns, us, ms, s, m, h`);
    const scale = NS_PER_UNIT.get(unit);
    if (scale === undefined) throw new DurationSyntaxError(text, `unknown unit ${JSON.stringify(unit)}; units are ns, us, ms, s, m, h`);

    total += BigInt(whole === '' ? '0' : whole) * scale;
    // Digits finer than a nanosecond are dropped, as Go does.
    if (fraction !== '') total += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
    if (total > MAX_NS + 1n) break;
    rest = rest.slice(term[0].length);
  }

  const signed = negative ? -total : total;
  if (signed > MAX_NS || signed < MIN_NS) {
    throw new DurationSyntaxError(text, 'out of range; the longest duration is 2562047h47m16.854775807s');
  }
  return signed;
}

/** `value / scale` as decimal text with trailing zeros of the fraction removed ("1.5", "2"). */
function decimal(value: bigint, scale: bigint): string {
  const whole = value / scale;
  const fraction = value % scale;
  if (fraction === 0n) return whole.toString();
  const digits = scale.toString().length - 1;
  return `${whole}.${fraction.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Formats nanoseconds as Go's Duration.String() does: "0s", "300ms", "1.5µs", "1h30m0s". */
export function formatDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const magnitude = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (magnitude < 1_000n) return `${sign}${magnitude}ns`;
  if (magnitude < 1_000_000n) return `${sign}${decimal(magnitude, 1_000n)}\u00b5s`;
  if (magnitude < NS_PER_SECOND) return `${sign}${decimal(magnitude, 1_000_000n)}ms`;

  const hours = magnitude / NS_PER_HOUR;
  const minutes = (magnitude % NS_PER_HOUR) / NS_PER_MINUTE;
  const seconds = decimal(magnitude % NS_PER_MINUTE, NS_PER_SECOND);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** An immutable duration read from a configuration file. */
export class Duration {
  /** Exact length in nanoseconds. */
  readonly nanoseconds: bigint;

  constructor(nanoseconds: bigint) {
    if (nanoseconds > MAX_NS || nanoseconds < MIN_NS) throw new RangeError('a duration must fit in a signed 64-bit count of nanoseconds');
    this.nanoseconds = nanoseconds;
  }

  /** Parses Go duration text (see {@link parseDuration}). */
  static parse(text: string): Duration {
    return new Duration(parseDuration(text));
  }

  /** A duration of whole or fractional milliseconds (rounded to the nanosecond). */
  static fromMilliseconds(milliseconds: number): Duration {
    return new Duration(BigInt(Math.round(milliseconds * 1e6)));
  }

  /** Length in milliseconds, for timers (sub-nanosecond precision is never needed there). */
  toMilliseconds(): number {
    return Number(this.nanoseconds) / 1e6;
  }

  /** Go-style text, e.g. "5s" or "1h30m0s". */
  toString(): string {
    return formatDuration(this.nanoseconds);
  }
}
