/** How a node home's configuration opens the App (shared by `stratad start`, rollback and the chain import). */
import { readFileSync } from 'node:fs';

import { App, parseGenesisJson, type AppOptions } from '../app/index.js';
import type { LoadedConfig } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from './home.js';

/**
 * The App options app.toml describes: state commitment, state store and the call gas cap.
 * `maintenance` (an offline command such as rollback) writes no snapshots and prunes nothing.
 */
export function appOptionsOf(config: LoadedConfig, mode: { maintenance?: boolean } = {}): AppOptions {
  const { stateCommit: sc, stateStore: ss, evm } = config.app;
  const maintenance = mode.maintenance === true;
  return {
    commit: maintenance
      ? { snapshotInterval: 0 }
      : { snapshotInterval: sc.snapshotInterval, keepRecent: sc.keepRecent, snapshotWriteRateMbps: sc.snapshotWriteRateMbps },
    ss: {
      backend: ss.backend,
      evmSsSplit: ss.evmSsSplit,
      evmSsSeparateDbs: ss.evmSsSeparateDbs,
      asyncWriteBuffer: ss.asyncWriteBuffer,
      keepRecent: maintenance ? 0 : ss.keepRecent,
      pruneIntervalSeconds: maintenance ? 0 : ss.pruneInterval,
    },
    gasCap: evm.gasCap,
    allowUnprotectedTxs: evm.allowUnprotectedTxs,
  };
}

/** Opens the App of the home at `paths` with its genesis file and app.toml. */
export function openHomeApp(paths: HomePaths, config: LoadedConfig, logger: Logger, mode: { maintenance?: boolean } = {}): Promise<App> {
  const genesis = parseGenesisJson(readFileSync(paths.genesis, 'utf8'));
  return App.open(paths.data, appOptionsOf(config, mode), genesis, logger);
}
