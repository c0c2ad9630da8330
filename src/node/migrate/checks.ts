/**
 * The checks `stratad migrate evm-ss-split` runs before it touches anything (spec "Migration
 * procedure", step 1, and "The split is supported on RPC nodes only"). Each refusal is a
 * MigrationRefusedError naming the reason and the fix; every check only reads.
 */
import { existsSync, lstatSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

import { readGenesisFile, type GenesisFile } from '../../chain/genesis-file.js';
import { loadValidatorKey } from '../../chain/keys.js';
import { ConfigError, ConfigFileError, LegacyConfigKeyError, loadConfig, type LoadedConfig } from '../../config/index.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from '../home-lock.js';
import type { HomePaths } from '../home.js';
import { MigrationRefusedError, TrustedRpcError } from './errors.js';
import { trustedBlockHash, trustedNodeStatus, type TrustedNodeStatus } from './trusted-rpc.js';

/** What the checks found out about the home. */
export interface HomeFacts {
  readonly config: LoadedConfig;
  readonly genesis: GenesisFile;
  /** Bytes under data/ and wasm/ now: about what the state-synced store needs again. */
  readonly dataBytes: number;
  /** Bytes the filesystem of the home has free for this user. */
  readonly freeBytes: number;
}

/** Reads app.toml and config.toml; a legacy key or an invalid file refuses the migration. */
export async function loadHomeConfig(paths: HomePaths): Promise<LoadedConfig> {
  try {
    return await loadConfig(paths.home);
  } catch (error) {
    if (error instanceof LegacyConfigKeyError) {
      throw new MigrationRefusedError(
        'legacy keys',
        `${error.file} still holds evm-ss-write-mode / evm-ss-read-mode, keys of releases before evm-ss-split`,
        'remove evm-ss-write-mode and evm-ss-read-mode from [state-store] in app.toml (this release reads evm-ss-split only), then run the migration again',
      );
    }
    if (error instanceof ConfigError || error instanceof ConfigFileError) {
      throw new MigrationRefusedError('configuration', error.message, 'correct the configuration so that `stratad start` accepts it, then run the migration again');
    }
    throw error;
  }
}

/** The validator key of the home, when it has one and it is readable. */
function validatorAddressOf(paths: HomePaths): string | undefined {
  if (!existsSync(paths.validatorKey)) return undefined;
  try {
    return loadValidatorKey(paths.validatorKey).address.toLowerCase();
  } catch (error) {
    throw new MigrationRefusedError(
      'validator key',
      `${paths.validatorKey} cannot be read (${error instanceof Error ? error.message : String(error)})`,
      'restore the key file from its backup (it is backed up and restored by the migration, so it must be readable)',
    );
  }
}

/** Refuses a home whose key signs blocks: the split is for RPC nodes only. */
function checkNotValidator(paths: HomePaths, genesis: GenesisFile): void {
  const address = validatorAddressOf(paths);
  if (address === undefined) return;
  const signs = genesis.validators.some((v) => v.address.replace(/^0x/, '').toLowerCase() === address);
  if (!signs) return;
  throw new MigrationRefusedError(
    'validator node',
    `this home's validator key (${address.toUpperCase()}) is in the genesis validator set, so the node signs blocks; the EVM state-store split and its migration are supported on RPC nodes only`,
    'run the migration on an RPC node (a home whose priv_validator_key.json is not a genesis validator); keep this validator on evm-ss-split = false',
  );
}

/** Refuses an archive node (sc-enable / ss-enable off are refused by the configuration itself). */
function checkStateSettings(config: LoadedConfig): void {
  const { stateStore } = config.app;
  if (stateStore.keepRecent === 0) {
    throw new MigrationRefusedError(
      'archive node',
      'ss-keep-recent = 0 in [state-store] keeps every version (an archive node); a state sync starts from one snapshot height and cannot rebuild that history, and archive nodes are not supported by the migration',
      'keep this archive node on evm-ss-split = false, or set ss-keep-recent to the number of recent versions an RPC node keeps (e.g. 100000) if this node is not meant to be an archive',
    );
  }
  if (!config.app.evm.httpEnabled) {
    throw new MigrationRefusedError(
      'EVM RPC',
      'http-enabled = false in app.toml; the migration verifies the node with debug_traceBlockByNumber on its EVM JSON-RPC',
      'set http-enabled = true (the HTTP JSON-RPC server) in app.toml',
    );
  }
}

/** Refuses while a process holds the home (a running node). */
function checkStopped(paths: HomePaths): void {
  if (!homeHeldByAnotherProcess(paths.data)) return;
  throw new MigrationRefusedError('node running', homeHeldMessage(paths.data), 'stop the node (SIGTERM, or your service manager), then run the migration again');
}

/** Bytes of every file under `path` (0 when missing); symbolic links count as themselves. */
export function treeBytes(path: string): number {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + treeBytes(join(path, name)), 0);
}

/** Refuses when the filesystem cannot hold the state again (spec: room for two SS databases). */
function checkDisk(paths: HomePaths): { dataBytes: number; freeBytes: number } {
  const dataBytes = treeBytes(paths.data) + treeBytes(join(paths.home, 'wasm'));
  const fs = statfsSync(paths.home);
  const freeBytes = Number(fs.bavail) * Number(fs.bsize);
  if (freeBytes < dataBytes) {
    throw new MigrationRefusedError(
      'disk space',
      `the filesystem of ${paths.home} has ${freeBytes} bytes free, but data/ and wasm/ hold ${dataBytes} bytes and the state-synced stores need about as much while old and new layouts may briefly coexist`,
      `free at least ${dataBytes - freeBytes} more bytes on that filesystem (deleting data/snapshots/ is safe), then run the migration again`,
    );
  }
  return { dataBytes, freeBytes };
}

/** Every check on the home itself, in the order the operator would fix them. */
export async function checkHome(paths: HomePaths): Promise<HomeFacts> {
  const config = await loadHomeConfig(paths);
  let genesis: GenesisFile;
  try {
    genesis = readGenesisFile(paths.genesis);
  } catch (error) {
    throw new MigrationRefusedError('genesis', error instanceof Error ? error.message : String(error), "put the chain's genesis.json in config/ (it is backed up and restored by the migration)");
  }
  checkNotValidator(paths, genesis);
  checkStateSettings(config);
  checkStopped(paths);
  const disk = checkDisk(paths);
  return { config, genesis, ...disk };
}

/** What the trusted node gives the migration: its status and the trusted block. */
export interface TrustedFacts {
  readonly status: TrustedNodeStatus;
  readonly trustHeight: number;
  readonly trustHash: string;
}

/** Checks that `server` answers /status for this chain, and reads the trusted block at latest − delta. */
export async function checkTrustedRpc(server: string, chainId: string, trustDelta: number): Promise<TrustedFacts> {
  const unreachable = (error: unknown): never => {
    if (!(error instanceof TrustedRpcError)) throw error;
    throw new MigrationRefusedError(
      'trusted RPC',
      `--rpc ${server} is not usable: ${error.message}`,
      "give --rpc the consensus RPC (port 26657, e.g. http://<host>:26657) of a trusted node of this chain that is running and reachable from here",
    );
  };
  const status = await trustedNodeStatus(server).catch(unreachable);
  if (status.chainId !== chainId) {
    throw new MigrationRefusedError(
      'trusted RPC',
      `--rpc ${server} serves chain "${status.chainId}" but this home's genesis is chain "${chainId}"`,
      'give --rpc a node of the chain in config/genesis.json',
    );
  }
  if (status.latestHeight < 1) {
    throw new MigrationRefusedError('trusted RPC', `--rpc ${server} has no blocks yet (latest height 0)`, 'wait until the trusted node has produced or synced blocks');
  }
  // Latest − delta, but never below the trusted node's first stored block (nor height 1).
  const trustHeight = Math.max(1, status.earliestHeight, status.latestHeight - trustDelta);
  const trustHash = await trustedBlockHash(status, trustHeight).catch(unreachable);
  return { status, trustHeight, trustHash };
}
