/**
 * Non-fatal findings while loading configuration (unknown keys, settings that have no effect).
 * They are returned to the caller, which decides how to log them.
 */
import { describeLocation, type SettingLocation } from './errors.js';

/** One non-fatal finding, located like an error. */
export interface ConfigWarning extends SettingLocation {
  /** Complete operator-facing line, starting with the location. */
  readonly message: string;
}

/** Builds a warning whose message is `<location>: <text>`. */
export function configWarning(where: SettingLocation, text: string): ConfigWarning {
  return { file: where.file, section: where.section, key: where.key, message: `${describeLocation(where)}: ${text}` };
}

/** A parsed file: its typed config and the non-fatal findings. */
export interface ParsedConfigFile<C> {
  /** The typed, validated configuration. */
  readonly config: C;
  /** Unknown keys and settings that have no effect. */
  readonly warnings: readonly ConfigWarning[];
}
