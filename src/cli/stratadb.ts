#!/usr/bin/env node
/**
 * `stratadb`: the storage-engine tool. Works on a stopped node's data directories.
 */
import { Builtins, Cli } from 'clipanion';
import { DumpDbCommand } from './commands/dump-db.js';
import { DumpIavlCommand } from './commands/dump-iavl.js';
import { RepairSnapshotsCommand } from './commands/repair-snapshots.js';
import { VERSION } from '../node/version.js';

const cli = new Cli({ binaryLabel: 'Strata storage-engine tool', binaryName: 'stratadb', binaryVersion: VERSION });
cli.register(DumpDbCommand);
cli.register(DumpIavlCommand);
cli.register(RepairSnapshotsCommand);
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
await cli.runExit(process.argv.slice(2));
