/**
 * Writing `app.toml` and `config.toml`: every key of the schema, each under a one-line comment
 * that says what it does and what its default is. The output loads back to the same config.
 */
import { stringify } from 'smol-toml';
import { APP_SECTIONS, type AppConfig } from './app-config.js';
import { NODE_BASE_SETTINGS, NODE_SECTIONS, type NodeConfig } from './node-config.js';
import { settingEntries, type SectionSchema, type Settings } from './schema.js';
import type { RenderedValue } from './value-kinds.js';

/** A value as TOML writes it (strings quoted and escaped by the serializer). */
function tomlLiteral(value: RenderedValue): string {
  const line = stringify({ v: value }).trimEnd();
  return line.slice('v = '.length);
}

function renderSettings<S>(settings: Settings<S>, values: S): string[] {
  const lines: string[] = [];
  for (const [property, setting] of settingEntries(settings)) {
    // Keys are bare TOML keys (letters, digits, '-', '_'), so they need no quoting.
    lines.push(
      `# ${setting.doc} Default: ${tomlLiteral(setting.kind.write(setting.default))}.`,
      `${setting.key} = ${tomlLiteral(setting.kind.write(values[property]))}`,
    );
  }
  return lines;
}

function renderSection<S>(schema: SectionSchema<S>, values: S): string[] {
  return ['', `# ${schema.doc}`, `[${schema.name}]`, ...renderSettings(schema.settings, values)];
}

function joinLines(lines: readonly string[]): string {
  return `${lines.join('\n')}\n`;
}

/** Renders a complete `config/app.toml` for `config` (which must be valid, e.g. as loaded). */
export function renderAppToml(config: AppConfig): string {
  return joinLines([
    '# Strata node: application settings (state layers and EVM JSON-RPC server).',
    ...renderSection(APP_SECTIONS.stateCommit, config.stateCommit),
    ...renderSection(APP_SECTIONS.stateStore, config.stateStore),
    ...renderSection(APP_SECTIONS.evm, config.evm),
    ...renderSection(APP_SECTIONS.stateSync, config.stateSync),
    ...renderSection(APP_SECTIONS.storage, config.storage),
  ]);
}

/** Renders a complete `config/config.toml` for `config` (which must be valid, e.g. as loaded). */
export function renderConfigToml(config: NodeConfig): string {
  return joinLines([
    '# Strata node: node settings (identity, logging, peers, consensus RPC, mempool, state sync, metrics).',
    '',
    ...renderSettings(NODE_BASE_SETTINGS, config),
    ...renderSection(NODE_SECTIONS.rpc, config.rpc),
    ...renderSection(NODE_SECTIONS.p2p, config.p2p),
    ...renderSection(NODE_SECTIONS.mempool, config.mempool),
    ...renderSection(NODE_SECTIONS.statesync, config.statesync),
    ...renderSection(NODE_SECTIONS.consensus, config.consensus),
    ...renderSection(NODE_SECTIONS.instrumentation, config.instrumentation),
    ...renderSection(NODE_SECTIONS.log, config.log),
  ]);
}
