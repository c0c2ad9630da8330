/**
 * `stratad debug dump-iavl <height> [--home <dir>] [-o <dir>]`: the node's view of
 * `stratadb dump-iavl` — the state commitment of a stopped node's home at `height`, one file
 * per module plus FlatKV's rows under `evm_lattice`, for comparing app hashes between nodes.
 */
import { Command, Option } from 'clipanion';
import { join } from 'node:path';
import { StoreError, memiavlDir } from '../../store/index.js';
import { dumpCommitment } from './dump-iavl.js';
import { defaultHome, homePaths } from '../../node/home.js';

export class DebugDumpIavlCommand extends Command {
  static override paths = [['debug', 'dump-iavl']];
  static override usage = Command.Usage({
    description: 'dump the state commitment at a height, one file per module (the node must be stopped)',
    examples: [['Dump height 120 of the default home', 'stratad debug dump-iavl 120']],
  });

  height = Option.String({ required: true, name: 'height' });
  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  output = Option.String('-o,--output-dir', { description: 'where the files go (default <home>/dump-iavl-<height>)' });

  override async execute(): Promise<number> {
    const height = Number(this.height);
    if (!Number.isSafeInteger(height) || height < 0) {
      this.context.stderr.write(`height must be a non-negative integer (0 = latest), got "${this.height}"\n`);
      return 2;
    }
    const paths = homePaths(this.home);
    const out = this.output ?? join(paths.home, `dump-iavl-${height}`);
    try {
      await dumpCommitment(memiavlDir(paths.data), out, { height }, (line) => this.context.stdout.write(`${line}\n`));
      return 0;
    } catch (error) {
      this.context.stderr.write(`dump-iavl failed: ${error instanceof StoreError ? error.message : String(error)}\n`);
      return 1;
    }
  }
}
