/**
 * `stratad debug dump-db [--home <dir>] [--filter <store>] [--errors-only] [-o <file>]`: every
 * stored version of every key of the node's state store — the Cosmos SS and, when present,
 * the EVM SS (`data/evm_ss/`, one DB or its five sub-DBs) — one section per DB headed
 * `# <dir> latest <v> earliest <v>`, then stratadb dump-db's lines `<store> <key hex> <version>
 * <value hex>`. A DB that cannot be opened or read (corrupted, held by a running node) is
 * reported as an `ERROR` line and the dump goes on; `--errors-only` prints only those.
 * Opens every DB read-only: nothing on disk changes.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Command, Option } from 'clipanion';
import { loadConfig } from '../../config/index.js';
import { defaultHome, homePaths } from '../../node/home.js';
import { MvccStore, cosmosStoreDir, evmStoreDir, type Backend } from '../../store/index.js';

/** Sub-DBs of an EVM SS with evm-ss-separate-dbs. */
const EVM_SUB_DBS = ['nonce', 'codehash', 'code', 'storage', 'legacy'];

/** The state-store DBs of a data directory that hold a database. */
function stateStoreDbs(dataDir: string, backend: Backend): string[] {
  const evm = evmStoreDir(dataDir);
  const candidates = [cosmosStoreDir(dataDir, backend), evm, ...EVM_SUB_DBS.map((name) => join(evm, name))];
  return candidates.filter((dir) => existsSync(join(dir, 'CURRENT')));
}

/** Writes one line, waiting when the stream asks to. */
async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
}

export class DebugDumpDbCommand extends Command {
  static override paths = [['debug', 'dump-db']];
  static override usage = Command.Usage({
    description: "dump every stored version of the node's state store, Cosmos and EVM sides (output may be filtered for errors)",
    examples: [
      ['Dump everything', 'stratad debug dump-db -o ss.txt'],
      ['Only the bank store', 'stratad debug dump-db --filter bank'],
      ['Only what cannot be read', 'stratad debug dump-db --errors-only'],
    ],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  filter = Option.String('--filter', { description: 'only this module store (e.g. bank, evm)' });
  errorsOnly = Option.Boolean('--errors-only', false, { description: 'print only the DBs that cannot be opened or read' });
  output = Option.String('-o,--output', { description: 'output file (default: standard output)' });

  override async execute(): Promise<number> {
    const paths = homePaths(this.home);
    const config = await loadConfig(paths.home);
    const backend = config.app.stateStore.backend;
    const dbs = stateStoreDbs(paths.data, backend);
    if (dbs.length === 0) {
      this.context.stderr.write(`no state store under ${paths.data} (ss-backend "${backend}"); check --home\n`);
      return 1;
    }
    const out: Writable = this.output ? createWriteStream(this.output) : this.context.stdout;
    let lines = 0;
    let errors = 0;
    try {
      for (const dir of dbs) {
        let store: MvccStore | undefined;
        try {
          store = await MvccStore.open(dir, { backend, readOnly: true, createIfMissing: false });
          if (!this.errorsOnly) await writeLine(out, `# ${dir} latest ${store.latestVersion()} earliest ${store.earliestVersion()}`);
          for (const entry of store.rawEntries()) {
            if (this.filter !== undefined && entry.store !== this.filter) continue;
            lines++;
            if (!this.errorsOnly) {
              await writeLine(out, `${entry.store} ${entry.key.toString('hex')} ${entry.version} ${entry.value.toString('hex')}`);
            }
          }
        } catch (error) {
          errors++;
          await writeLine(out, `ERROR ${dir}: ${error instanceof Error ? error.message : String(error)}`);
        } finally {
          await store?.close().catch(() => undefined);
        }
      }
    } finally {
      if (out !== this.context.stdout) await new Promise<void>((resolve) => out.end(() => resolve()));
    }
    this.context.stderr.write(`dumped ${lines} versions from ${dbs.length} state store DB${dbs.length === 1 ? '' : 's'}, ${errors} unreadable\n`);
    return errors === 0 ? 0 : 1;
  }
}
