#!/usr/bin/env -S node --max-semi-space-size=64
/**
 * `stratad`: the Strata node binary.
 */
import { Builtins, Cli } from 'clipanion';
import { CrashReportCommand } from './commands/crash-report.js';
import { DoctorCommand } from './commands/doctor.js';
import { DebugDumpDbCommand } from './commands/debug-dump-db.js';
import { DebugDumpIavlCommand } from './commands/debug-dump-iavl.js';
import { DebugImportEthChainCommand } from './commands/debug-import-eth-chain.js';
import { InitCommand } from './commands/init.js';
import { MigrateEvmSsSplitCommand } from './commands/migrate.js';
import { QueryStakingValidatorCommand } from './commands/query-staking.js';
import { RollbackCommand } from './commands/rollback.js';
import { SnapshotsExportCommand, SnapshotsListCommand, SnapshotsRestoreCommand } from './commands/snapshots.js';
import { StartCommand } from './commands/start.js';
import { StatusCommand } from './commands/status.js';
import { TendermintUnsafeResetAllCommand } from './commands/tendermint-reset.js';
import { TendermintShowNodeIdCommand, TendermintShowValidatorCommand } from './commands/tendermint-show.js';
import { VERSION } from '../node/version.js';

const cli = new Cli({ binaryLabel: 'Strata node', binaryName: 'stratad', binaryVersion: VERSION });
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
cli.register(InitCommand);
cli.register(StartCommand);
cli.register(StatusCommand);
cli.register(RollbackCommand);
cli.register(MigrateEvmSsSplitCommand);
cli.register(SnapshotsListCommand);
cli.register(SnapshotsExportCommand);
cli.register(SnapshotsRestoreCommand);
cli.register(DebugDumpIavlCommand);
cli.register(DebugDumpDbCommand);
cli.register(DebugImportEthChainCommand);
cli.register(CrashReportCommand);
cli.register(DoctorCommand);
cli.register(TendermintUnsafeResetAllCommand);
cli.register(TendermintShowValidatorCommand);
cli.register(TendermintShowNodeIdCommand);
cli.register(QueryStakingValidatorCommand);
await cli.runExit(process.argv.slice(2));
