/** Strict reading of `tracerConfig` objects (geth rejects values of the wrong JSON type). */
import { TracerConfigError } from './errors.js';
import type { JsonValue } from './types.js';

/** A tracer's configuration object (`{}` when none was given). */
export type TracerConfig = { readonly [key: string]: JsonValue | undefined };

/** The boolean option `key` (false when absent or null); other types are rejected as geth does. */
export function booleanOption(config: TracerConfig, key: string, structName: string): boolean {
  const value = config[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    throw new TracerConfigError(`json: cannot unmarshal ${jsonKind(value)} into Go struct field ${structName}.${key} of type bool`);
  }
  return value;
}

function jsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
