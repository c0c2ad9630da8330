/**
 * `stratadb dump-iavl -d <committer_db_path> -o <output_path> [--height H] [-m module]`
 *
 * Writes memiavl's trees at a height, one file per module named after it: a first line
 * `Tree <module> has version <v> and root hash: <HEX>`, then `Key: <HEX>, Value: <HEX>` per
 * leaf; and FlatKV's rows (the `evm` store) in a file `evm_lattice` headed by the
 * `evm_lattice` hash, when the height is FlatKV's latest (FlatKV keeps no history). Compare two
 * nodes' outputs file by file to find the store behind an app-hash mismatch.
 */
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Command, Option } from 'clipanion';
import { EVM_LATTICE, StoreError, dumpFlatkv, dumpIavl } from '../../store/index.js';

/** Where a line of the dump's report goes. */
type Report = (line: string) => void;

/**
 * Dumps memiavl (`committerDb`) at `height` (0 = latest) and FlatKV beside it (`flatkv/` next to
 * `committer.db`) into `outDir`; reports each tree. Returns whether any tree was dumped.
 */
export async function dumpCommitment(
  committerDb: string,
  outDir: string,
  options: { height: number; module?: string },
  report: Report,
): Promise<boolean> {
  const dumped = await dumpIavl(committerDb, outDir, {
    height: options.height,
    ...(options.module !== undefined && options.module !== EVM_LATTICE ? { modules: [options.module] } : {}),
  });
  let any = dumped.length === 0;
  for (const tree of dumped) {
    if (!tree.exists) {
      report(`Tree does not exist for module ${tree.module}`);
      continue;
    }
    any = true;
    report(`Tree ${tree.module} has version ${tree.version} and root hash: ${tree.rootHash} (${tree.leaves} leaves) -> ${tree.path}`);
  }
  const flatkv = join(dirname(committerDb), 'flatkv');
  const wantsFlatkv = options.module === undefined || options.module === 'evm' || options.module === EVM_LATTICE;
  if (!wantsFlatkv || basename(committerDb) !== 'committer.db' || !existsSync(flatkv)) return any;
  const lattice = await dumpFlatkv(committerDb, flatkv, outDir);
  if (options.height !== 0 && lattice.version !== options.height) {
    rmSync(lattice.path, { force: true });
    report(`Tree ${EVM_LATTICE} is not dumped: FlatKV keeps only its latest version (${lattice.version}), not ${options.height}`);
    return any;
  }
  report(`Tree ${EVM_LATTICE} has version ${lattice.version} and root hash: ${lattice.latticeHash} (${lattice.rows} rows) -> ${lattice.path}`);
  return true;
}

export class DumpIavlCommand extends Command {
  static override paths = [['dump-iavl']];
  static override usage = Command.Usage({
    description: 'dump the state commitment (memiavl) at a height for app-hash comparison (the node must be stopped)',
    examples: [
      ['Dump every module at the latest height', 'stratadb dump-iavl -d ~/.strata/data/committer.db -o dump'],
      ['Dump bank at height 120', 'stratadb dump-iavl -d ~/.strata/data/committer.db -o dump --height 120 -m bank'],
    ],
  });

  dir = Option.String('-d,--db-dir', { required: true, description: 'the committer.db directory (memiavl)' });
  output = Option.String('-o,--output-dir', { required: true, description: 'directory the per-module files go to' });
  height = Option.String('--height', '0', { description: 'height to dump (0 = latest)' });
  module = Option.String('-m,--module', { description: 'only this module' });

  override async execute(): Promise<number> {
    const height = Number(this.height);
    if (!Number.isSafeInteger(height) || height < 0) {
      this.context.stderr.write(`--height must be a non-negative integer, got "${this.height}"\n`);
      return 2;
    }
    try {
      const any = await dumpCommitment(
        this.dir,
        this.output,
        { height, ...(this.module !== undefined ? { module: this.module } : {}) },
        (line) => this.context.stdout.write(`${line}\n`),
      );
      return any ? 0 : 1;
    } catch (error) {
      const message = error instanceof StoreError ? error.message : String(error);
      this.context.stderr.write(`dump-iavl failed: ${message}\n`);
      return 1;
    }
  }
}
