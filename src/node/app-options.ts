/** How a node home's configuration opens the App (shared by `stratad start`, rollback and the chain import). */
import { readFileSync } from 'node:fs';

import { App, parseGenesisJson, type AppOptions } from '../app/index.js';
import type { LoadedConfig } from '../config/index.js';
import { createMemoryBudget, type MemoryBudget } from '../store/index.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from './home.js';

/** How the App is opened besides app.toml. */
export interface AppOpenMode {
  /** An offline command such as rollback: it writes no snapshots and prunes nothing. */
  maintenance?: boolean;
  /** The running node's shared RocksDB memory; without it each store has its own cache. */
  memoryBudget?: MemoryBudget;
}

const MIB = 1024 * 1024;

/** The RocksDB memory budget `[storage]` sets, for every store of a running node. */
export function memoryBudgetOf(config: LoadedConfig): MemoryBudget {
  const { blockCacheSizeMb, writeBufferSizeMb } = config.app.storage;
  return createMemoryBudget({ blockCacheBytes: blockCacheSizeMb * MIB, writeBufferBytes: writeBufferSizeMb * MIB });
}

/** The App options app.toml describes: state commitment, state store and the call gas cap. */
export function appOptionsOf(config: LoadedConfig, mode: AppOpenMode = {}): AppOptions {
  const { stateCommit: sc, stateStore: ss, evm } = config.app;
  const maintenance = mode.maintenance === true;
  const memory = mode.memoryBudget ? { memoryBudget: mode.memoryBudget } : {};
  return {
    commit: maintenance
      ? { snapshotInterval: 0 }
      : { snapshotInterval: sc.snapshotInterval, keepRecent: sc.keepRecent, snapshotWriteRateMbps: sc.snapshotWriteRateMbps, ...memory },
    ss: {
      backend: ss.backend,
      evmSsSplit: ss.evmSsSplit,
      evmSsSeparateDbs: ss.evmSsSeparateDbs,
      asyncWriteBuffer: ss.asyncWriteBuffer,
      keepRecent: maintenance ? 0 : ss.keepRecent,
      pruneIntervalSeconds: maintenance ? 0 : ss.pruneInterval,
      ...memory,
    },
    gasCap: evm.gasCap,
    allowUnprotectedTxs: evm.allowUnprotectedTxs,
  };
}

/** Opens the App of the home at `paths` with its genesis file and app.toml. */
export function openHomeApp(paths: HomePaths, config: LoadedConfig, logger: Logger, mode: AppOpenMode = {}): Promise<App> {
  const genesis = parseGenesisJson(readFileSync(paths.genesis, 'utf8'));
  return App.open(paths.data, appOptionsOf(config, mode), genesis, logger);
}
