/**
 * The home's rewrite (spec "Migration procedure", steps 3 and 4): the settings the migrated
 * node runs with, the wipe of its local state, the re-initialisation and the settings written
 * back. The settings are computed and validated before anything is deleted, so a value the
 * node would refuse stops the migration while the home is still intact.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  configPaths,
  parseAppToml,
  parseConfigToml,
  parsePersistentPeers,
  renderAppToml,
  renderConfigToml,
  type AppConfig,
  type LoadedConfig,
  type NodeConfig,
  type PersistentPeer,
  type SsBackend,
} from '../../config/index.js';
import type { HomePaths } from '../home.js';
import { MigrationRefusedError } from './errors.js';

/** Re-creates a node home's configuration, keys, genesis and data/ as `stratad init` does. */
export type Reinitialise = (home: string, chainId: string, moniker: string) => Promise<void>;

/** What the migrated settings take from the trusted node. */
export interface StateSyncSource {
  /** `rpc-servers`: at least two (the config's light client needs a primary and a witness). */
  readonly rpcServers: readonly string[];
  readonly trustHeight: number;
  /** 64 hex characters. */
  readonly trustHash: string;
  /** The trusted node as a persistent peer, `<node_id>@<host>:<port>`. */
  readonly peer: string;
}

/** The two settings files of the migrated home, as text, already validated. */
export interface MigratedSettings {
  readonly app: AppConfig;
  readonly node: NodeConfig;
  readonly appToml: string;
  readonly configToml: string;
}

/** The persistent peers after the migration: the trusted node first, then the others the node had. */
function peersWith(primary: string, existing: readonly PersistentPeer[]): readonly PersistentPeer[] {
  const parsed = parsePersistentPeers(primary);
  if (!parsed.ok) throw new MigrationRefusedError('trusted RPC', `the trusted node's p2p address "${primary}" is not a peer address: ${parsed.reason}`, 'check the node_info of --rpc /status');
  const [trusted] = parsed.value;
  if (trusted === undefined) throw new MigrationRefusedError('trusted RPC', 'the trusted node reported no p2p address', 'check the node_info of --rpc /status');
  return [trusted, ...existing.filter((peer) => peer.nodeId.toLowerCase() !== trusted.nodeId.toLowerCase())];
}

/** app.toml and config.toml of the migrated node: the split on (and `backend`), state sync from `source`. */
export function migratedSettings(config: LoadedConfig, source: StateSyncSource, backend: SsBackend | undefined): MigratedSettings {
  const app: AppConfig = {
    ...config.app,
    stateStore: { ...config.app.stateStore, evmSsSplit: true, backend: backend ?? config.app.stateStore.backend },
  };
  const node: NodeConfig = {
    ...config.node,
    persistentPeers: peersWith(source.peer, config.node.persistentPeers),
    statesync: {
      ...config.node.statesync,
      enable: true,
      rpcServers: source.rpcServers,
      trustHeight: source.trustHeight,
      trustHash: source.trustHash.toLowerCase(),
    },
  };
  const appToml = renderAppToml(app);
  const configToml = renderConfigToml(node);
  const paths = configPaths('');
  // The node reads them back at its start: a value it would refuse must refuse the migration now.
  try {
    parseAppToml(appToml, paths.app);
    parseConfigToml(configToml, paths.node);
  } catch (error) {
    throw new MigrationRefusedError(
      'settings',
      `the migrated settings would not load: ${error instanceof Error ? error.message : String(error)}`,
      'correct the value in app.toml / config.toml or the --rpc given, then run the migration again',
    );
  }
  return { app, node, appToml, configToml };
}

/** What the wipe deletes: data/, wasm/, and the config copies the spec names. */
export function wipeTargets(paths: HomePaths): string[] {
  return [paths.data, join(paths.home, 'wasm'), paths.validatorKey, paths.genesis, configPaths(paths.home).node];
}

/** Deletes every wipe target (a missing one is fine). */
export function wipeHome(paths: HomePaths): void {
  for (const target of wipeTargets(paths)) rmSync(target, { recursive: true, force: true });
}

/** Writes the migrated settings over the re-initialised defaults. */
export function writeSettings(paths: HomePaths, settings: MigratedSettings): void {
  const files = configPaths(paths.home);
  writeFileSync(files.app, settings.appToml);
  writeFileSync(files.node, settings.configToml);
}
