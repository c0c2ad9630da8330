/**
 * Typed errors of the configuration layer. A value error names the file, the section, the key,
 * what is allowed and what was found, so the operator can fix `app.toml` / `config.toml`
 * without reading source code.
 */

/** Where a setting lives: the file relative to the node home, and its section ("" = top level). */
export interface SettingLocation {
  /** File relative to the node home, e.g. `config/app.toml`. */
  readonly file: string;
  /** Section name without brackets, e.g. `state-store`; "" for a top-level key. */
  readonly section: string;
  /** The key as spelled in the file (or as it should be spelled, when it is missing). */
  readonly key: string;
}

/** Renders `config/app.toml [state-store] ss-backend` (or `config/config.toml moniker`). */
export function describeLocation(where: SettingLocation): string {
  return where.section === '' ? `${where.file} ${where.key}` : `${where.file} [${where.section}] ${where.key}`;
}

/** Fields of a value error. */
export interface ConfigErrorDetails extends SettingLocation {
  /** What the key accepts, e.g. `one of "pebbledb", "rocksdb"`. */
  readonly allowed: string;
  /** The offending value as written, e.g. `"leveldb"`. */
  readonly found: string;
  /** Why the value is wrong, when "expected … found …" alone does not show it (e.g. "a string"). */
  readonly detail?: string;
  /** What to do about it, when more than "write an allowed value" is needed. */
  readonly remedy?: string;
}

/** A setting holds a value the node cannot accept. */
export class ConfigError extends Error {
  /** File relative to the node home, e.g. `config/app.toml`. */
  readonly file: string;
  /** Section name without brackets; "" for a top-level key. */
  readonly section: string;
  /** The key as spelled in the file. */
  readonly key: string;
  /** What the key accepts. */
  readonly allowed: string;
  /** The value found in the file. */
  readonly found: string;

  constructor(details: ConfigErrorDetails, message?: string) {
    super(message ?? ConfigError.formatMessage(details));
    this.name = new.target.name;
    this.file = details.file;
    this.section = details.section;
    this.key = details.key;
    this.allowed = details.allowed;
    this.found = details.found;
  }

  /** `config/app.toml [state-store] ss-backend: expected one of …; found "leveldb"[ (detail)][. remedy]`. */
  static formatMessage(details: ConfigErrorDetails): string {
    const detail = details.detail === undefined || details.detail === '' ? '' : ` (${details.detail})`;
    const remedy = details.remedy === undefined ? '' : `. ${details.remedy}`;
    return `${describeLocation(details)}: expected ${details.allowed}; found ${details.found}${detail}${remedy}`;
  }
}

/** Values of the two pre-`evm-ss-split` keys, as found (undefined when absent). */
export interface LegacyEvmSsModes {
  /** `evm-ss-write-mode`, rendered as found (e.g. `"split_write"`). */
  readonly writeMode: string | undefined;
  /** `evm-ss-read-mode`, rendered as found. */
  readonly readMode: string | undefined;
}

/**
 * `evm-ss-write-mode` / `evm-ss-read-mode` are present: they belong to releases before
 * `evm-ss-split`, and guessing the operator's intent silently could route EVM reads to an empty
 * store, so the node refuses to start until the file says `evm-ss-split` explicitly.
 */
export class LegacyConfigKeyError extends ConfigError {
  /** The legacy values found. */
  readonly legacy: LegacyEvmSsModes;
  /** The `evm-ss-split` value the legacy pair corresponds to. */
  readonly equivalentSplit: boolean;

  constructor(details: ConfigErrorDetails, legacy: LegacyEvmSsModes, equivalentSplit: boolean, message: string) {
    super(details, message);
    this.legacy = legacy;
    this.equivalentSplit = equivalentSplit;
  }
}

/** Base class of problems with a configuration file as a whole (missing, unreadable, not TOML). */
export class ConfigFileError extends Error {
  /** Absolute path of the file. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.path = path;
  }
}

/** A configuration file does not exist; the message names the path and `stratad init`. */
export class ConfigFileNotFoundError extends ConfigFileError {
  /** The node home that was searched. */
  readonly home: string;
  constructor(path: string, home: string) {
    super(
      path,
      `configuration file not found: ${path}. Create the node home with ` +
        `"stratad init --chain-id <chain_id> <moniker> --home ${home}", ` +
        `or pass the --home that holds config/app.toml and config/config.toml`,
    );
    this.home = home;
  }
}

/** A configuration file is not valid TOML; `line` and `column` point at the problem. */
export class ConfigSyntaxError extends ConfigFileError {
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem. */
  readonly column: number;
  constructor(path: string, line: number, column: number, reason: string) {
    super(path, `${path}:${line}:${column}: not valid TOML (${reason}); fix the file at that line`);
    this.line = line;
    this.column = column;
  }
}
