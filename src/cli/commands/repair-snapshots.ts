/**
 * `stratadb repair-snapshots -d <committer_db_path>`
 *
 * The remedy a damaged memiavl snapshot's CorruptionError names: verifies every snapshot
 * against its CHECKSUMS, removes the damaged ones and points `current` at the newest intact
 * one, from which the changelog replays to the latest committed version. Refuses, changing
 * nothing, when the changelog no longer reaches back that far.
 */
import { Command, Option } from 'clipanion';
import { StoreError, repairSnapshots } from '../../store/index.js';

export class RepairSnapshotsCommand extends Command {
  static override paths = [['repair-snapshots']];
  static override usage = Command.Usage({
    description: 'remove damaged state-commitment (memiavl) snapshots and fall back to the newest intact one (the node must be stopped)',
    examples: [['Repair a node home', 'stratadb repair-snapshots -d ~/.strata/data/committer.db']],
  });

  dir = Option.String('-d,--db-dir', { required: true, description: 'the committer.db directory (memiavl)' });

  override async execute(): Promise<number> {
    try {
      const repair = await repairSnapshots(this.dir);
      const out = this.context.stdout;
      if (repair.removed.length === 0) out.write('No damaged snapshot found; nothing removed\n');
      for (const removed of repair.removed) out.write(`Removed snapshot ${removed.version} (${removed.path}): ${removed.reason}\n`);
      out.write(
        repair.current === null
          ? 'current: no snapshot left; the changelog replays from the first version\n'
          : `current -> snapshot ${repair.current}\n`,
      );
      out.write(`The state commitment will open at version ${repair.version}\n`);
      return 0;
    } catch (error) {
      const message = error instanceof StoreError ? error.message : String(error);
      this.context.stderr.write(`repair-snapshots failed: ${message}\n`);
      return 1;
    }
  }
}
