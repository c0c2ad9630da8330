/**
 * `stratad migrate evm-ss-split --rpc <trusted consensus RPC> [--backend pebbledb|rocksdb]
 * [--trust-delta 10000] [--dry-run] [--yes] [--home <dir>]`, and `--disable`.
 *
 * Moves a stopped RPC node to the EVM state-store split (and optionally to the other
 * `ss-backend`) by the spec's ordered procedure: checks, backup, wipe, re-initialisation,
 * settings for a state sync from the trusted node, restore, start, and the readiness check.
 */
import { Cli, Command, Option } from 'clipanion';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { SS_BACKENDS, type SsBackend } from '../../config/index.js';
import { defaultHome } from '../../node/home.js';
import {
  describeDisable,
  describePlan,
  MigrationRefusedError,
  MigrationStepError,
  planDisable,
  planMigration,
  runDisable,
  runMigration,
  type NodeLauncher,
  type Reinitialise,
} from '../../node/migrate/index.js';
import { InitCommand } from './init.js';

const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

function failure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return PROGRAMMING_ERRORS.some((type) => error instanceof type) ? (error.stack ?? error.message) : error.message;
}

/** A Writable that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done): void {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** `stratad init` run in this process, its output kept for a failure message. */
const reinitialise: Reinitialise = async (home, chainId, moniker) => {
  const cli = new Cli({ binaryName: 'stratad' });
  cli.register(InitCommand);
  const out = collector();
  const code = await cli.run(['init', '--chain-id', chainId, moniker, '--home', home, '--dev-accounts', '0'], { stdout: out.stream, stderr: out.stream });
  if (code !== 0) throw new Error(`stratad init exited with ${code}: ${out.text().trim()}`);
};

/** This program as `stratad start` runs it: the same interpreter, flags and script. */
function selfLauncher(): NodeLauncher {
  const script = process.argv[1];
  if (script === undefined) throw new Error('cannot tell how this program was started (no script path)');
  return { command: process.execPath, args: [...process.execArgv, script] };
}

export class MigrateEvmSsSplitCommand extends Command {
  static override paths = [['migrate', 'evm-ss-split']];
  static override usage = Command.Usage({
    description: 'move a stopped RPC node to the EVM state-store split by a wipe and a state sync (or --disable it)',
    details:
      'Checks the home (an RPC node, not an archive; sc-enable and ss-enable true; no legacy evm-ss-*-mode keys; stopped; enough disk) ' +
      'and the trusted node, then backs up the keys, signing state and genesis, wipes data/ and wasm/, re-initialises the home, ' +
      'writes evm-ss-split = true and the state-sync settings from --rpc, restores the backups, starts the node and waits until ' +
      'it serves debug_traceBlockByNumber("latest", {}).',
    examples: [
      ['See every step without changing anything', 'stratad migrate evm-ss-split --rpc http://10.0.0.5:26657 --dry-run'],
      ['Migrate and switch to RocksDB, without a prompt', 'stratad migrate evm-ss-split --rpc http://10.0.0.5:26657 --backend rocksdb --yes'],
      ['Turn the split off and delete data/evm_ss/', 'stratad migrate evm-ss-split --disable'],
    ],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  rpc = Option.Array('--rpc', { description: 'consensus RPC of a trusted node, e.g. http://10.0.0.5:26657 (repeat or comma-separate for more)' });
  backend = Option.String('--backend', { description: 'switch ss-backend in the same pass: pebbledb or rocksdb' });
  trustDelta = Option.String('--trust-delta', '10000', { description: 'trust height = the trusted node\'s latest height minus this' });
  readyTimeout = Option.String('--ready-timeout', '1800', { description: 'seconds to wait for the started node to be ready' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'print every step with its values and change nothing' });
  yes = Option.Boolean('--yes', false, { description: 'do not ask for confirmation' });
  disable = Option.Boolean('--disable', false, { description: 'set evm-ss-split = false and delete data/evm_ss/ (node stopped)' });

  override async execute(): Promise<number> {
    const err = this.context.stderr;
    if (this.disable) {
      if (this.rpc !== undefined || this.backend !== undefined) {
        err.write('--disable takes no --rpc or --backend: it only turns the split off\n');
        return 2;
      }
      return this.#disable();
    }
    const servers = (this.rpc ?? []).flatMap((value) => value.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    if (servers.length === 0) {
      err.write('--rpc is required: the consensus RPC of a trusted node of this chain, e.g. --rpc http://10.0.0.5:26657\n');
      return 2;
    }
    if (this.backend !== undefined && !(SS_BACKENDS as readonly string[]).includes(this.backend)) {
      err.write(`--backend must be one of ${SS_BACKENDS.join(', ')}, got "${this.backend}"\n`);
      return 2;
    }
    const trustDelta = Number(this.trustDelta);
    if (!Number.isSafeInteger(trustDelta) || trustDelta < 0) {
      err.write(`--trust-delta must be a non-negative integer, got "${this.trustDelta}"\n`);
      return 2;
    }
    const readySeconds = Number(this.readyTimeout);
    if (!Number.isFinite(readySeconds) || readySeconds <= 0) {
      err.write(`--ready-timeout must be a positive number of seconds, got "${this.readyTimeout}"\n`);
      return 2;
    }
    const out = this.context.stdout;
    try {
      const plan = await planMigration({
        home: this.home,
        rpc: servers,
        backend: this.backend as SsBackend | undefined,
        trustDelta,
        readyTimeoutMs: readySeconds * 1000,
      });
      for (const line of describePlan(plan)) out.write(`${line}\n`);
      if (this.dryRun) {
        out.write('Dry run: nothing was changed.\n');
        return 0;
      }
      if (!(await this.#confirmed())) return 1;
      const node = await runMigration(plan, { reinitialise, launcher: selfLauncher(), report: (line) => out.write(`${line}\n`) });
      out.write(
        `Migration complete: the node runs in the background (pid ${node.pid}), its output in ${plan.logFile}; ` +
          `the backups stay in ${plan.backupDir}\n`,
      );
      return 0;
    } catch (error) {
      err.write(`${error instanceof MigrationRefusedError || error instanceof MigrationStepError ? error.message : failure(error)}\n`);
      return 1;
    }
  }

  /** Asks on a terminal; refuses without one unless --yes was given. */
  async #confirmed(): Promise<boolean> {
    if (this.yes) return true;
    const stdin = this.context.stdin as NodeJS.ReadStream;
    if (!stdin.isTTY) {
      this.context.stderr.write(
        'migration refused (confirmation): standard input is not a terminal, so nobody can confirm the wipe. ' +
          'Fix: pass --yes to migrate without a prompt (or --dry-run to only see the steps). Nothing in the home was changed.\n',
      );
      return false;
    }
    const prompt = createInterface({ input: stdin, output: this.context.stdout });
    try {
      const answer = await prompt.question(`This deletes ${this.home}/data and wasm. Proceed? [y/N] `);
      if (/^y(es)?$/i.test(answer.trim())) return true;
      this.context.stderr.write('migration cancelled; nothing in the home was changed\n');
      return false;
    } finally {
      prompt.close();
    }
  }

  async #disable(): Promise<number> {
    try {
      const plan = await planDisable(this.home);
      for (const line of describeDisable(plan)) this.context.stdout.write(`${line}\n`);
      if (this.dryRun) {
        this.context.stdout.write('Dry run: nothing was changed.\n');
        return 0;
      }
      runDisable(plan);
      this.context.stdout.write('The EVM state-store split is off.\n');
      return 0;
    } catch (error) {
      this.context.stderr.write(`${failure(error)}\n`);
      return 1;
    }
  }
}
