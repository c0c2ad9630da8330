/**
 * `stratadb dump-iavl -d <committer_db_path> -o <output_path> [--height H] [-m module]`
 *
 * Writes memiavl's trees at a height, one file per module named after it: a first line
 * `Tree <module> has version <v> and root hash: <HEX>`, then `Key: <HEX>, Value: <HEX>` per
 * leaf. Compare two nodes' outputs to find the store behind an app-hash mismatch.
 */
import { Command, Option } from 'clipanion';
import { StoreError, dumpIavl } from '../../store/index.js';

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
      const dumped = await dumpIavl(this.dir, this.output, {
        height,
        ...(this.module !== undefined ? { modules: [this.module] } : {}),
      });
      for (const tree of dumped) {
        if (!tree.exists) {
          this.context.stdout.write(`Tree does not exist for module ${tree.module}\n`);
          continue;
        }
        this.context.stdout.write(
          `Tree ${tree.module} has version ${tree.version} and root hash: ${tree.rootHash} (${tree.leaves} leaves) -> ${tree.path}\n`,
        );
      }
      return dumped.some((t) => t.exists) || dumped.length === 0 ? 0 : 1;
    } catch (error) {
      const message = error instanceof StoreError ? error.message : String(error);
      this.context.stderr.write(`dump-iavl failed: ${message}\n`);
      return 1;
    }
  }
}
