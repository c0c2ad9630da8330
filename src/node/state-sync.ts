/**
 * State sync at node start: with `[statesync] enable = true` in config.toml and a home that
 * holds no state yet (or a state sync a crash cut short), the node restores its state from a
 * snapshot its peers serve (sync/state-sync.ts) before it opens its stores and serves RPC; then
 * it starts as any node does, at the snapshot height, and block sync goes on from there. A
 * home that already holds state starts from it and the setting is ignored, as in CometBFT.
 *
 * The peer host used here lives only for the state sync; the node's network starts its own
 * on the same port once the state is in place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parseGenesisJson } from '../app/index.js';
import { blockHash } from '../chain/block.js';
import { BlockStore } from '../chain/block-store.js';
import type { NodeKey } from '../chain/keys.js';
import type { LoadedConfig } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import { PeerHost } from '../p2p/index.js';
import { discardInterruptedRestore, flatkvDir, memiavlDir, restoreMarkerPath } from '../store/index.js';
import { StateSyncError, stateSync, validatorSetOf, type StateSyncResult } from '../sync/index.js';
import { appOptionsOf } from './app-options.js';
import type { HomePaths } from './home.js';
import { SNAPSHOT_BLOCK_FILE, decodeSnapshotBlock } from './snapshot-block.js';

function populated(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/** Whether the home holds no state of its own: no commitment, no blocks (or a restore that did not finish). */
export function needsStateSync(dataDir: string): boolean {
  if (existsSync(restoreMarkerPath(dataDir))) return true;
  return !populated(memiavlDir(dataDir)) && !populated(flatkvDir(dataDir)) && !populated(join(dataDir, 'blockstore'));
}

/** What a start-time state sync needs. */
export interface StartStateSync {
  paths: HomePaths;
  config: LoadedConfig;
  nodeKey: NodeKey | undefined;
  logger: Logger;
  /** Replaces `[p2p] laddr`'s port (tests). */
  port?: number;
}

/**
 * Runs state sync when config.toml enables it and the home holds no state; returns its result,
 * or undefined when none was needed. Throws the state sync's typed errors (a wrong trust hash
 * refuses the start with nothing written).
 */
export async function stateSyncAtStart(options: StartStateSync): Promise<StateSyncResult | undefined> {
  const { paths, config, logger } = options;
  const settings = config.node.statesync;
  if (!settings.enable) return undefined;
  if (!needsStateSync(paths.data)) {
    logger.info('[statesync] enable = true, but the home already holds state: starting from it (empty data/, keeping priv_validator_state.json, to state sync again)');
    return undefined;
  }
  if (!options.nodeKey) throw new StateSyncError(`state sync needs the node key ${paths.nodeKey} to talk to peers; run \`stratad init\` for this home`);
  if (config.node.persistentPeers.length === 0) {
    throw new StateSyncError('[statesync] enable = true needs peers that serve snapshots: set persistent_peers in config.toml');
  }
  if (existsSync(restoreMarkerPath(paths.data))) {
    logger.warn('discarding a state sync that did not finish (the process stopped mid-import); starting over', { marker: restoreMarkerPath(paths.data) });
    discardInterruptedRestore(paths.data);
  }
  const genesis = parseGenesisJson(readFileSync(paths.genesis, 'utf8'));
  const app = appOptionsOf(config);
  const p2p = config.node.p2p;
  const log = logger.child({ module: 'statesync' });
  const host = await PeerHost.start({
    seed: options.nodeKey.seed,
    listen: { host: p2p.laddr.host, port: options.port ?? p2p.laddr.port },
    persistentPeers: config.node.persistentPeers,
    maxMessageBytes: p2p.maxPacketMsgPayloadSize,
    logger: logger.child({ module: 'p2p' }),
  });
  try {
    return await stateSync({
      host,
      dataDir: paths.data,
      trust: {
        rpcServers: settings.rpcServers,
        trustHeight: settings.trustHeight,
        trustHash: settings.trustHash,
        trustPeriodMs: Number(settings.trustPeriod.nanoseconds / 1_000_000n),
        chainId: genesis.chain_id,
      },
      validators: validatorSetOf(genesis.validators),
      evmChainId: BigInt(genesis.evm_chain_id),
      commit: app.commit,
      ss: app.ss,
      expectedPeers: config.node.persistentPeers.length,
      logger: log,
      snapshotBlock: {
        fileName: SNAPSHOT_BLOCK_FILE,
        check: (bytes, height, hash) => {
          const { block } = decodeSnapshotBlock(bytes);
          if (block.header.height !== height || !blockHash(block.header).equals(hash)) {
            throw new StateSyncError(`the snapshot's block is not the trusted chain's block ${height}`);
          }
        },
        store: async (bytes) => {
          const { block, receipts, commit } = decodeSnapshotBlock(bytes);
          const store = await BlockStore.open(paths.data);
          try {
            await store.saveBlock(block, receipts, commit, block.imported);
          } finally {
            await store.close();
          }
        },
      },
    });
  } finally {
    await host.stop();
  }
}
