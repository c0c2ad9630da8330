/**
 * Declarative description of a configuration section: for every property of the typed config,
 * its TOML key, its one-line documentation, its kind and its default. Parsing, defaults and
 * rendering all walk the same description, so a key cannot be read under one name and written
 * under another.
 */
import type { ValueKind } from './value-kinds.js';

/** One key of a section. */
export interface Setting<T> {
  /** The key as rendered (and, in `app.toml`, the only accepted spelling). */
  readonly key: string;
  /** One-line comment written above the key. */
  readonly doc: string;
  /** How the value is read, described and written. */
  readonly kind: ValueKind<T>;
  /** Value used when the key is absent. */
  readonly default: T;
}

/** The settings of a section, one per property of its typed config `S`. */
export type Settings<S> = { readonly [P in keyof S]: Setting<S[P]> };

/** A `[section]` of a file: its name, a one-line comment and its settings. */
export interface SectionSchema<S> {
  /** Name between the brackets, e.g. `state-store`. */
  readonly name: string;
  /** One-line comment written above the section header. */
  readonly doc: string;
  /** Keys of the section. */
  readonly settings: Settings<S>;
}

/** The settings of a section as (property, setting) pairs, in declaration order. */
export function settingEntries<S>(settings: Settings<S>): Array<readonly [keyof S, Setting<S[keyof S]>]> {
  return (Object.keys(settings) as Array<keyof S>).map((property) => [property, settings[property]] as const);
}

/** The typed config a section has when none of its keys are set. */
export function defaultsOf<S>(settings: Settings<S>): S {
  const values: Partial<S> = {};
  for (const [property, setting] of settingEntries(settings)) values[property] = setting.default;
  return values as S;
}
