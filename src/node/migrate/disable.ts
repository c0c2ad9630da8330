/**
 * `stratad migrate evm-ss-split --disable` (spec "Migration procedure", step 8, and the
 * split-on → split-off transition): `evm-ss-split = false` in app.toml and `data/evm_ss/`
 * deleted, on a stopped node only. The node then reads EVM state from the Cosmos SS, which
 * lacks what was written while the split was on, until a state sync without the split.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';

import { configPaths, renderAppToml, type LoadedConfig } from '../../config/index.js';
import { evmStoreDir } from '../../store/index.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from '../home-lock.js';
import { homePaths, type HomePaths } from '../home.js';
import { loadHomeConfig } from './checks.js';
import { MigrationRefusedError } from './errors.js';

/** What `--disable` will do. */
export interface DisablePlan {
  readonly paths: HomePaths;
  readonly config: LoadedConfig;
  /** `evm-ss-split` is true now and will be set to false. */
  readonly setSplitOff: boolean;
  /** `data/evm_ss/`, when it exists and will be deleted. */
  readonly evmDir: string | undefined;
}

/** Checks a home for `--disable` (read-only). */
export async function planDisable(home: string): Promise<DisablePlan> {
  const paths = homePaths(home);
  const config = await loadHomeConfig(paths);
  if (homeHeldByAnotherProcess(paths.data)) {
    throw new MigrationRefusedError('node running', homeHeldMessage(paths.data), 'stop the node first: data/evm_ss/ is deleted only while the node is stopped');
  }
  const evmDir = evmStoreDir(paths.data);
  return { paths, config, setSplitOff: config.app.stateStore.evmSsSplit, evmDir: existsSync(evmDir) ? evmDir : undefined };
}

/** The plan as the operator reads it. */
export function describeDisable(plan: DisablePlan): string[] {
  if (!plan.setSplitOff && plan.evmDir === undefined) return [`${plan.paths.home}: evm-ss-split is already false and there is no data/evm_ss/; nothing to do`];
  return [
    plan.setSplitOff ? `1. set evm-ss-split = false in ${configPaths(plan.paths.home).app}` : `1. evm-ss-split is already false in ${configPaths(plan.paths.home).app}`,
    plan.evmDir !== undefined ? `2. delete ${plan.evmDir}` : '2. there is no data/evm_ss/ to delete',
    'EVM queries then miss EVM state written while the split was on, until a state sync without the split',
  ];
}

/** Carries out `--disable`: the setting first, so an interrupted run never leaves the split on without its store. */
export function runDisable(plan: DisablePlan): void {
  if (plan.setSplitOff) {
    const app = { ...plan.config.app, stateStore: { ...plan.config.app.stateStore, evmSsSplit: false } };
    writeFileSync(configPaths(plan.paths.home).app, renderAppToml(app));
  }
  if (plan.evmDir !== undefined) rmSync(plan.evmDir, { recursive: true, force: true });
}
