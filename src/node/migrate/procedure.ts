/**
 * `stratad migrate evm-ss-split` as an ordered procedure (spec "Migration procedure"): a plan
 * made by read-only checks, printed with its concrete values, then carried out step by step.
 * A failed step names the state the home is in and the way on or back.
 */
import { join } from 'node:path';

import type { SsBackend } from '../../config/index.js';
import { homePaths, type HomePaths } from '../home.js';
import { backupDirName, backupPlan, restoreBackup, writeBackup, type BackedUpFile } from './backup.js';
import { checkHome, checkTrustedRpc, type HomeFacts, type TrustedFacts } from './checks.js';
import { MigrationStepError } from './errors.js';
import { migratedSettings, wipeHome, wipeTargets, writeSettings, type MigratedSettings, type Reinitialise } from './home-rewrite.js';
import { consensusRpcUrl } from './trusted-rpc.js';
import { evmRpcUrl, startInBackground, waitForReady, type BackgroundNode, type NodeLauncher } from './wait-for-ready.js';

/** What the operator asked for. */
export interface MigrateRequest {
  readonly home: string;
  /** Consensus RPC servers of trusted nodes; the first is the primary (trust block, peer). */
  readonly rpc: readonly string[];
  /** The new `ss-backend`, when switching. */
  readonly backend?: SsBackend | undefined;
  /** Trust height = latest − this. */
  readonly trustDelta: number;
  /** How long to wait for the started node to be ready. */
  readonly readyTimeoutMs: number;
  /** The time that names the backup folder and the log file (default: now). */
  readonly now?: Date;
}

/** Everything the migration will do, with its values, decided before anything is written. */
export interface MigrationPlan {
  readonly paths: HomePaths;
  readonly chainId: string;
  readonly moniker: string;
  readonly facts: HomeFacts;
  readonly trusted: TrustedFacts;
  readonly rpcServers: readonly string[];
  readonly backupDir: string;
  readonly backup: readonly BackedUpFile[];
  readonly wipe: readonly string[];
  readonly settings: MigratedSettings;
  readonly logFile: string;
  readonly evmRpc: string;
  readonly readyTimeoutMs: number;
}

/** Runs every check (read-only) and decides every value; throws MigrationRefusedError on a refusal. */
export async function planMigration(request: MigrateRequest): Promise<MigrationPlan> {
  const paths = homePaths(request.home);
  const facts = await checkHome(paths);
  const chainId = facts.genesis.chain_id;
  const [primary] = request.rpc;
  if (primary === undefined) throw new Error('planMigration needs at least one --rpc server');
  const trusted = await checkTrustedRpc(primary, chainId, request.trustDelta);
  const servers = request.rpc.map(consensusRpcUrl);
  // The light client needs a primary and a witness; one trusted server serves as both.
  const rpcServers = servers.length >= 2 ? servers : [trusted.status.url, trusted.status.url];
  const settings = migratedSettings(
    facts.config,
    { rpcServers, trustHeight: trusted.trustHeight, trustHash: trusted.trustHash, peer: `${trusted.status.nodeId}@${trusted.status.p2pAddress}` },
    request.backend,
  );
  const stamp = backupDirName(request.now ?? new Date());
  const backupDir = join(paths.home, stamp);
  return {
    paths,
    chainId,
    moniker: facts.config.node.moniker,
    facts,
    trusted,
    rpcServers,
    backupDir,
    backup: backupPlan(paths, backupDir),
    wipe: wipeTargets(paths),
    settings,
    logFile: join(paths.home, `${stamp.replace('migrate-backup-', 'stratad-')}.log`),
    evmRpc: evmRpcUrl(facts.config.app.evm),
    readyTimeoutMs: request.readyTimeoutMs,
  };
}

/** The steps in order, numbered as failures name them. */
const STEPS = ['back up', 'wipe', 're-initialise', 'write settings', 'restore backups', 'start the node', 'wait until ready'] as const;

/** The plan as the operator reads it: the checks passed and every step with its concrete values. */
export function describePlan(plan: MigrationPlan): string[] {
  const { stateStore } = plan.settings.app;
  const before = plan.facts.config.app.stateStore;
  const statesync = plan.settings.node.statesync;
  const peers = plan.settings.node.persistentPeers.map((p) => `${p.nodeId}@${p.host}:${p.port}`).join(',');
  return [
    `Migration of ${plan.paths.home} to the EVM state-store split (chain ${plan.chainId}, moniker ${plan.moniker})`,
    `Checks passed: RPC node (not a genesis validator), not an archive (ss-keep-recent = ${before.keepRecent}), sc-enable and ss-enable true, ` +
      `no legacy evm-ss-write-mode/evm-ss-read-mode, node stopped, ${plan.facts.freeBytes} bytes free for ${plan.facts.dataBytes} bytes of data, ` +
      `trusted node ${plan.trusted.status.url} (node ${plan.trusted.status.nodeId}, latest height ${plan.trusted.status.latestHeight})`,
    `1. ${STEPS[0]}: copy ${plan.backup.map((f) => f.path).join(', ')} to ${plan.backupDir}`,
    `2. ${STEPS[1]}: delete ${plan.wipe.join(', ')}`,
    `3. ${STEPS[2]}: stratad init --chain-id ${plan.chainId} ${plan.moniker} --home ${plan.paths.home}`,
    `4. ${STEPS[3]}: app.toml [state-store] evm-ss-split = true, ss-backend = "${stateStore.backend}"` +
      (stateStore.backend !== before.backend ? ` (was "${before.backend}")` : '') +
      `; config.toml [statesync] enable = true, rpc-servers = "${statesync.rpcServers.join(',')}", trust-height = ${statesync.trustHeight}, ` +
      `trust-hash = "${statesync.trustHash}"; persistent_peers = "${peers}"; every other setting as before`,
    `5. ${STEPS[4]}: copy ${plan.backup.filter((f) => f.restored).map((f) => f.copy).join(', ')} back to their places`,
    `6. ${STEPS[5]}: stratad start --home ${plan.paths.home} in the background, its output in ${plan.logFile}`,
    `7. ${STEPS[6]}: the log lines "StrataDB SS is enabled", "StrataDB EVM StateStore optimization is enabled", "EVM state store enabled" ` +
      `and a result from debug_traceBlockByNumber("latest", {}) at ${plan.evmRpc} (at most ${Math.round(plan.readyTimeoutMs / 1000)} s)`,
  ];
}

/** What running the plan needs from its caller. */
export interface MigrationRunner {
  /** Re-creates the home as `stratad init` does. */
  readonly reinitialise: Reinitialise;
  /** How to run `stratad start`. */
  readonly launcher: NodeLauncher;
  /** Receives one line per event. */
  readonly report: (line: string) => void;
}

/** Shell lines that put every backed-up file back. */
function restoreLines(plan: MigrationPlan): string {
  return plan.backup.map((f) => `  cp -p ${f.copy} ${f.path}`).join('\n');
}

/** The state of the home after `step` failed, and what the operator does next. */
function afterFailure(plan: MigrationPlan, step: number, node: BackgroundNode | undefined): { state: string; next: string } {
  const home = plan.paths.home;
  const disable = `stratad migrate evm-ss-split --disable --home ${home}`;
  if (step === 1) {
    return {
      state: `unchanged, apart from the backup folder ${plan.backupDir} (it may be incomplete)`,
      next: `fix the cause, delete ${plan.backupDir}, and run the migration again`,
    };
  }
  if (step <= 5) {
    return {
      state:
        `part-way: data/ and wasm/ may be deleted, config/ may hold freshly initialised files; the backups are complete in ${plan.backupDir} ` +
        '(the deleted stores cannot be restored: they come back by state sync or block sync)',
      next:
        `to undo, put the backed-up files back:\n${restoreLines(plan)}\n` +
        `  then start the node (it syncs its blocks again from its peers); to continue instead, do that and run the migration again`,
    };
  }
  const running = node !== undefined && node.exit === undefined ? `the node runs in the background (pid ${node.pid}), ` : 'the node is not running, ';
  return {
    state: `migrated on disk (settings written, backups restored from ${plan.backupDir}); ${running}its output is in ${plan.logFile}`,
    next:
      `read ${plan.logFile}; a state sync may still be in progress, in which case wait and check debug_traceBlockByNumber("latest", {}) at ${plan.evmRpc}; ` +
      `if the node stopped, fix the cause and run stratad start --home ${home}. To undo: stop the node, run ${disable}, ` +
      `and copy ${join(plan.backupDir, 'app.toml')} and ${join(plan.backupDir, 'config.toml')} back into ${plan.paths.config}`,
  };
}

/** Carries out the plan; resolves to the started node once it is ready. */
export async function runMigration(plan: MigrationPlan, runner: MigrationRunner): Promise<BackgroundNode> {
  let node: BackgroundNode | undefined;
  const steps: ReadonlyArray<() => Promise<void> | void> = [
    () => {
      writeBackup(plan.backupDir, plan.backup);
      runner.report(`1. backed up ${plan.backup.length} files to ${plan.backupDir}`);
    },
    () => {
      wipeHome(plan.paths);
      runner.report(`2. deleted ${plan.wipe.join(', ')}`);
    },
    async () => {
      await runner.reinitialise(plan.paths.home, plan.chainId, plan.moniker);
      runner.report(`3. re-initialised ${plan.paths.home} (chain ${plan.chainId}, moniker ${plan.moniker})`);
    },
    () => {
      writeSettings(plan.paths, plan.settings);
      runner.report(
        `4. wrote app.toml (evm-ss-split = true, ss-backend = "${plan.settings.app.stateStore.backend}") and config.toml ` +
          `(state sync from ${plan.rpcServers[0]}, trust height ${plan.trusted.trustHeight}, trust hash ${plan.trusted.trustHash})`,
      );
    },
    () => {
      restoreBackup(plan.backup);
      runner.report(`5. restored ${plan.backup.filter((f) => f.restored).map((f) => f.path).join(', ')}`);
    },
    () => {
      node = startInBackground(runner.launcher, plan.paths.home, plan.logFile);
      runner.report(`6. started the node in the background: pid ${node.pid}, log ${plan.logFile}`);
    },
    async () => {
      if (node === undefined) throw new Error('the node was not started');
      await waitForReady(node, plan.evmRpc, plan.readyTimeoutMs, (_event, detail) => runner.report(`7. ${detail}`));
    },
  ];
  for (const [index, step] of steps.entries()) {
    try {
      await step();
    } catch (error) {
      const { state, next } = afterFailure(plan, index + 1, node);
      throw new MigrationStepError(index + 1, STEPS[index] ?? 'step', error, state, next);
    }
  }
  if (node === undefined) throw new Error('the node was not started');
  return node;
}
