/**
 * The kinds of value a setting can hold. Each kind reads a parsed TOML value into a typed one
 * (or says why it cannot), describes what it accepts for error messages, and writes the typed
 * value back for rendering.
 */
import { Duration, DurationSyntaxError } from './duration.js';
import { accept, reject, type Parsed } from './parse-result.js';
import { tomlTypeName, type TomlValue } from './toml-value.js';

/** A TOML value as the renderer writes it. */
export type RenderedValue = string | number | boolean;

/** How one setting is read, described and written. */
export interface ValueKind<T> {
  /** What the key accepts, completing "expected …". */
  readonly allowed: string;
  /** Reads a parsed TOML value; a rejection's reason completes "found X (reason)". */
  read(raw: TomlValue): Parsed<T>;
  /** The TOML value that reads back as `value`. */
  write(value: T): RenderedValue;
}

/** A wrong TOML type: the reason names the type that was found. */
function wrongType<T>(raw: TomlValue): Parsed<T> {
  return reject(tomlTypeName(raw));
}

/** `true` or `false`. */
export function booleanKind(): ValueKind<boolean> {
  return {
    allowed: 'true or false',
    read: (raw) => (typeof raw === 'boolean' ? accept(raw) : wrongType(raw)),
    write: (value) => value,
  };
}

/** Bounds of an integer setting (inclusive). */
export interface IntegerBounds {
  readonly min?: number;
  readonly max?: number;
}

function integerAllowed({ min, max }: IntegerBounds): string {
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer >= ${min}`;
  if (max !== undefined) return `an integer <= ${max}`;
  return 'an integer';
}

/** A TOML integer (not a float, not a quoted number) within bounds. */
export function integerKind(bounds: IntegerBounds = {}): ValueKind<number> {
  return {
    allowed: integerAllowed(bounds),
    read(raw) {
      if (typeof raw !== 'bigint') return wrongType(raw);
      if (raw > BigInt(Number.MAX_SAFE_INTEGER) || raw < BigInt(Number.MIN_SAFE_INTEGER)) return reject('too large');
      const value = Number(raw);
      if ((bounds.min !== undefined && value < bounds.min) || (bounds.max !== undefined && value > bounds.max)) return reject('');
      return accept(value);
    },
    write: (value) => value,
  };
}

/** One string out of a fixed list. */
export function oneOfKind<T extends string>(values: readonly T[]): ValueKind<T> {
  const isAllowed = (raw: string): raw is T => (values as readonly string[]).includes(raw);
  return {
    allowed: `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
    read(raw) {
      if (typeof raw !== 'string') return wrongType(raw);
      return isAllowed(raw) ? accept(raw) : reject('');
    },
    write: (value) => value,
  };
}

/** A Go duration string, never negative; `positive` also rules out zero. */
export function durationKind({ positive }: { readonly positive: boolean }): ValueKind<Duration> {
  return {
    allowed: `a duration such as "300ms", "5s" or "2h45m"${positive ? ', above 0s' : ', 0s or more'}`,
    read(raw) {
      // A bare integer would be nanoseconds to Go's config readers: almost never what was meant.
      if (typeof raw !== 'string') return wrongType(raw);
      let duration: Duration;
      try {
        duration = Duration.parse(raw);
      } catch (error) {
        if (error instanceof DurationSyntaxError) return reject(error.reason);
        throw error;
      }
      if (duration.nanoseconds < 0n) return reject('negative');
      if (positive && duration.nanoseconds === 0n) return reject('zero');
      return accept(duration);
    },
    write: (value) => value.toString(),
  };
}

/** A string read through a parser of its own (addresses, peer lists, hashes). */
export function textKind<T>(allowed: string, parse: (text: string) => Parsed<T>, format: (value: T) => string): ValueKind<T> {
  return {
    allowed,
    read: (raw) => (typeof raw === 'string' ? parse(raw) : wrongType(raw)),
    write: format,
  };
}
