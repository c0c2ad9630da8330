/**
 * Reads one section of a parsed TOML file into its typed config: applies defaults, turns a bad
 * value into a located ConfigError, resolves the '-' / '_' spelling of keys where the file
 * accepts both, and reports keys it does not know as warnings.
 */
import { ConfigError } from './errors.js';
import { settingEntries, type Settings } from './schema.js';
import { describeValue, isTable, type TomlTable, type TomlValue } from './toml-value.js';
import { configWarning, type ConfigWarning } from './warnings.js';

/**
 * Which spellings of a multi-word key a file accepts: `app.toml` only the documented one;
 * `config.toml` also the other separator, because Tendermint 0.34 wrote its keys in snake_case
 * and 0.35 onwards in kebab-case, so operators' files hold both.
 */
export type KeySpelling = 'as-documented' | 'dash-or-underscore';

/** The file being read and what reading it has found so far. */
export interface FileContext {
  /** File relative to the node home, e.g. `config/app.toml`. */
  readonly file: string;
  /** Accepted key spellings. */
  readonly spelling: KeySpelling;
  /** Warnings collected while reading. */
  readonly warnings: ConfigWarning[];
}

/** The key with its separators swapped ('-' ↔ '_'). */
function otherSpelling(key: string): string {
  return key.replace(/[-_]/g, (separator) => (separator === '-' ? '_' : '-'));
}

/** Key folded for "did you mean" matching: case and separators ignored. */
function folded(key: string): string {
  return key.toLowerCase().replace(/_/g, '-');
}

/** The spellings of `key` that the file accepts. */
export function acceptedSpellings(key: string, spelling: KeySpelling): readonly string[] {
  const other = otherSpelling(key);
  return spelling === 'dash-or-underscore' && other !== key ? [key, other] : [key];
}

/** A value found in the file under one accepted spelling of its key. */
export interface FoundValue {
  /** The key as spelled in the file. */
  readonly key: string;
  /** The parsed TOML value. */
  readonly value: TomlValue;
}

/** Finds `key` in `table` under any accepted spelling; two spellings at once are an error. */
export function findValue(ctx: FileContext, section: string, table: TomlTable, key: string): FoundValue | undefined {
  const present = acceptedSpellings(key, ctx.spelling).filter((spelled) => Object.hasOwn(table, spelled));
  const [first, second] = present;
  if (first === undefined) return undefined;
  const firstValue = table[first] as TomlValue;
  if (second !== undefined) {
    throw new ConfigError({
      file: ctx.file,
      section,
      key: first,
      allowed: `one spelling of the key, ${first} or ${second}`,
      found: `${first} = ${describeValue(firstValue)} and ${second} = ${describeValue(table[second] as TomlValue)}`,
      remedy: `Delete one of the two lines`,
    });
  }
  return { key: first, value: firstValue };
}

/** The `[name]` table of `root`; an absent section is empty, a non-table value is an error. */
export function sectionTable(ctx: FileContext, root: TomlTable, name: string): TomlTable {
  const value = root[name];
  if (value === undefined) return {};
  if (isTable(value)) return value;
  throw new ConfigError({
    file: ctx.file,
    section: '',
    key: name,
    allowed: `a table (a [${name}] section)`,
    found: describeValue(value),
    remedy: `Write the settings under a [${name}] header`,
  });
}

/**
 * Reads every setting of a section from `table` (absent keys take their default) and warns about
 * keys of `table` that are neither settings nor listed in `otherKnownKeys` (e.g. the section
 * names found at the top level of a file).
 */
export function readSettings<S>(
  ctx: FileContext,
  section: string,
  settings: Settings<S>,
  table: TomlTable,
  otherKnownKeys: ReadonlySet<string> = new Set(),
): S {
  const values: Partial<S> = {};
  const used = new Set<string>(otherKnownKeys);
  for (const [property, setting] of settingEntries(settings)) {
    const found = findValue(ctx, section, table, setting.key);
    if (found === undefined) {
      values[property] = setting.default;
      continue;
    }
    used.add(found.key);
    const parsed = setting.kind.read(found.value);
    if (!parsed.ok) {
      throw new ConfigError({
        file: ctx.file,
        section,
        key: found.key,
        allowed: setting.kind.allowed,
        found: describeValue(found.value),
        detail: parsed.reason,
      });
    }
    values[property] = parsed.value;
  }
  warnUnknownKeys(ctx, section, settings, table, used);
  return values as S;
}

function warnUnknownKeys<S>(ctx: FileContext, section: string, settings: Settings<S>, table: TomlTable, used: ReadonlySet<string>): void {
  const knownByFold = new Map<string, string>();
  for (const [, setting] of settingEntries(settings)) knownByFold.set(folded(setting.key), setting.key);
  for (const key of Object.keys(table)) {
    if (used.has(key)) continue;
    const what = isTable(table[key]) ? 'unknown section, ignored' : 'unknown key, ignored';
    const suggestion = knownByFold.get(folded(key));
    const hint = suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`;
    ctx.warnings.push(configWarning({ file: ctx.file, section, key }, `${what}${hint}`));
  }
}
