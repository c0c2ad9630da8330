/**
 * Public API of the configuration layer: load, validate and render `config/app.toml` and
 * `config/config.toml`.
 */
export {
  APP_SECTIONS,
  APP_TOML,
  SS_BACKENDS,
  defaultAppConfig,
  parseAppConfig,
  type AppConfig,
  type EvmRpcConfig,
  type SsBackend,
  type StateCommitConfig,
  type StateStoreConfig,
  type StateSyncSnapshotConfig,
  type StorageConfig,
} from './app-config.js';
export { formatHostPort, formatListenAddress, parseHostPort, parseListenAddress, type HostPort, type ListenAddress } from './address.js';
export { Duration, DurationSyntaxError, formatDuration, parseDuration } from './duration.js';
export {
  ConfigError,
  ConfigFileError,
  ConfigFileNotFoundError,
  ConfigSyntaxError,
  LegacyConfigKeyError,
  type ConfigErrorDetails,
  type LegacyEvmSsModes,
  type SettingLocation,
} from './errors.js';
export { splitEquivalentOfLegacyModes } from './legacy-keys.js';
export { configPaths, loadConfig, parseAppToml, parseConfigToml, type ConfigPaths, type LoadedConfig } from './load.js';
export {
  CONFIG_TOML,
  LOG_FORMATS,
  LOG_LEVELS,
  NODE_BASE_SETTINGS,
  NODE_SECTIONS,
  defaultNodeConfig,
  parseNodeConfig,
  type ConsensusConfig,
  type ConsensusRpcConfig,
  type InstrumentationConfig,
  type MempoolConfig,
  type NodeBaseConfig,
  type NodeConfig,
  type P2pConfig,
} from './node-config.js';
export { STATESYNC_SECTION, type StateSyncConfig } from './statesync.js';
export { formatPersistentPeers, parsePersistentPeers, type PersistentPeer } from './peers.js';
export type { Parsed } from './parse-result.js';
export { renderAppToml, renderConfigToml } from './render.js';
export type { ConfigWarning, ParsedConfigFile } from './warnings.js';
export type { SectionSchema, Setting, Settings } from './schema.js';
export type { RenderedValue, ValueKind } from './value-kinds.js';
