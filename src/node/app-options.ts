/** How a node home's app.toml opens the App's stores (shared by `stratad start` and the chain import). */
import type { AppOptions } from '../app/index.js';
import type { LoadedConfig } from '../config/index.js';

/** The App options app.toml describes: state commitment, state store and the call gas cap. */
export function appOptionsOf(config: LoadedConfig): AppOptions {
  const { stateCommit: sc, stateStore: ss, evm } = config.app;
  return {
    commit: { snapshotInterval: sc.snapshotInterval, keepRecent: sc.keepRecent, snapshotWriteRateMbps: sc.snapshotWriteRateMbps },
    ss: {
      backend: ss.backend,
      evmSsSplit: ss.evmSsSplit,
      evmSsSeparateDbs: ss.evmSsSeparateDbs,
      asyncWriteBuffer: ss.asyncWriteBuffer,
      keepRecent: ss.keepRecent,
      pruneIntervalSeconds: ss.pruneInterval,
    },
    gasCap: evm.gasCap,
  };
}
