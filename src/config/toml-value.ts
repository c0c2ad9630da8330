/**
 * Reading parsed TOML: tables are told apart from other values, and any value can be shown back
 * to the operator as it was written (for the "found …" half of an error message).
 */
import type { TomlTable, TomlValue } from 'smol-toml';

export type { TomlTable, TomlValue };

/** True for a TOML table (a `[section]` or an inline `{ … }`), false for every other value. */
export function isTable(value: TomlValue | undefined): value is TomlTable {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/** The TOML type of a value, as an operator would name it: "a string", "an integer", … */
export function tomlTypeName(value: TomlValue): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'bigint') return 'an integer';
  if (typeof value === 'number') return 'a float';
  if (typeof value === 'boolean') return 'a boolean';
  if (Array.isArray(value)) return 'an array';
  if (isTable(value)) return 'a table';
  return 'a date/time';
}

function floatText(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  // Keep "100.0" recognisable as a float: it is the reason an integer key rejects it.
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** Renders a value roughly as TOML writes it: `"leveldb"`, `42`, `1.5`, `true`, `[1, 2]`, `{ … }`. */
export function describeValue(value: TomlValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return floatText(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(describeValue).join(', ')}]`;
  if (isTable(value)) {
    const entries = Object.entries(value).map(([key, inner]) => `${key} = ${describeValue(inner)}`);
    return `{ ${entries.join(', ')} }`;
  }
  return String(value);
}
