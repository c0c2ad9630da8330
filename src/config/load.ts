/**
 * Loading `{home}/config/app.toml` and `{home}/config/config.toml`: read, parse as TOML
 * (integers kept exact, so `100` and `100.0` stay distinguishable), validate.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { APP_TOML, parseAppConfig, type AppConfig } from './app-config.js';
import { ConfigFileError, ConfigFileNotFoundError, ConfigSyntaxError } from './errors.js';
import { CONFIG_TOML, parseNodeConfig, type NodeConfig } from './node-config.js';
import type { TomlTable } from './toml-value.js';
import type { ConfigWarning, ParsedConfigFile } from './warnings.js';

/** Both files of a node home, validated. */
export interface LoadedConfig {
  /** `config/app.toml`. */
  readonly app: AppConfig;
  /** `config/config.toml`. */
  readonly node: NodeConfig;
  /** Non-fatal findings of both files (unknown keys, settings without effect). */
  readonly warnings: readonly ConfigWarning[];
}

/** Absolute paths of the two configuration files of a node home. */
export interface ConfigPaths {
  /** `{home}/config/app.toml`. */
  readonly app: string;
  /** `{home}/config/config.toml`. */
  readonly node: string;
}

/** Where the configuration files of `home` live. */
export function configPaths(home: string): ConfigPaths {
  return { app: join(home, APP_TOML), node: join(home, CONFIG_TOML) };
}

function errnoCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Parses TOML text; `source` names the file in a syntax error. */
function parseToml(text: string, source: string): TomlTable {
  try {
    return parse(text, { integersAsBigInt: true });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw new ConfigSyntaxError(source, error.line, error.column, reason);
  }
}

/** Parses and validates the text of an `app.toml`; `source` names the file in a syntax error. */
export function parseAppToml(text: string, source: string = APP_TOML): ParsedConfigFile<AppConfig> {
  return parseAppConfig(parseToml(text, source));
}

/** Parses and validates the text of a `config.toml`; `source` names the file in a syntax error. */
export function parseConfigToml(text: string, source: string = CONFIG_TOML): ParsedConfigFile<NodeConfig> {
  return parseNodeConfig(parseToml(text, source));
}

async function readConfigFile(path: string, home: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') throw new ConfigFileNotFoundError(path, home);
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigFileError(path, `cannot read ${path} (${reason}); check that it is a readable file`);
  }
}

/** Reads and validates both configuration files of the node home `home`. */
export async function loadConfig(home: string): Promise<LoadedConfig> {
  const paths = configPaths(home);
  // One file after the other, so a home missing both always reports app.toml first.
  const app = parseAppToml(await readConfigFile(paths.app, home), paths.app);
  const node = parseConfigToml(await readConfigFile(paths.node, home), paths.node);
  return { app: app.config, node: node.config, warnings: [...app.warnings, ...node.warnings] };
}
