/**
 * `stratad snapshots list|export|restore`: the local side of state sync. `list` shows the
 * home's snapshots in data/snapshots/; `export` writes one of a stopped home's current state;
 * `restore --from <dir>` builds an emptied home's state from a snapshot directory (verifying
 * every chunk and the app hash), after which `stratad start` serves RPC at that height.
 */
import { Command, Option } from 'clipanion';
import { defaultHome } from '../../node/home.js';
import { exportHomeSnapshot, listHomeSnapshots, restoreHomeSnapshot } from '../../node/home-snapshots.js';

const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

function failure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return PROGRAMMING_ERRORS.some((type) => error instanceof type) ? (error.stack ?? error.message) : error.message;
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

export class SnapshotsListCommand extends Command {
  static override paths = [['snapshots', 'list']];
  static override usage = Command.Usage({ description: "list the home's state-sync snapshots (data/snapshots/), newest first" });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });

  override async execute(): Promise<number> {
    try {
      const snapshots = listHomeSnapshots(this.home);
      if (snapshots.length === 0) this.context.stdout.write('no snapshots\n');
      for (const { dir, manifest } of snapshots) {
        const bytes = manifest.chunks.reduce((n, c) => n + c.bytes, 0);
        this.context.stdout.write(`height=${manifest.height} format=${manifest.format} chunks=${manifest.chunks.length} bytes=${bytes} app_hash=${manifest.appHash.toUpperCase()} dir=${dir}\n`);
      }
      return 0;
    } catch (error) {
      this.context.stderr.write(`${failure(error)}\n`);
      return 1;
    }
  }
}

export class SnapshotsExportCommand extends Command {
  static override paths = [['snapshots', 'export']];
  static override usage = Command.Usage({
    description: "write a snapshot of a stopped home's committed state into its data/snapshots/",
    examples: [['Snapshot the default home', 'stratad snapshots export']],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  chunkBytes = Option.String('--chunk-bytes', { description: 'chunk size in bytes, 1024 to 10000000 (default 10000000)' });

  override async execute(): Promise<number> {
    const chunkBytes = this.chunkBytes === undefined ? undefined : Number(this.chunkBytes);
    if (chunkBytes !== undefined && !Number.isSafeInteger(chunkBytes)) {
      this.context.stderr.write(`--chunk-bytes must be an integer, got "${this.chunkBytes}"\n`);
      return 2;
    }
    try {
      const { dir, manifest } = await exportHomeSnapshot(this.home, chunkBytes === undefined ? {} : { chunkBytes });
      this.context.stdout.write(`wrote snapshot height=${manifest.height} chunks=${manifest.chunks.length} app_hash=${manifest.appHash.toUpperCase()} dir=${dir}\n`);
      return 0;
    } catch (error) {
      this.context.stderr.write(`${failure(error)}\n`);
      return 1;
    }
  }
}

export class SnapshotsRestoreCommand extends Command {
  static override paths = [['snapshots', 'restore']];
  static override usage = Command.Usage({
    description: "restore an emptied home's state from a snapshot directory (then `stratad start` serves it)",
    details:
      "The home needs its config and genesis.json and no state in data/. The state store is built as the home's app.toml says " +
      '(ss-backend, evm-ss-split). A restore cut short (a crash, kill -9) leaves a mark the node refuses to start with; run the restore again, it starts over.',
    examples: [['Restore from another node\'s snapshot', 'stratad snapshots restore --home /srv/rpc --from /srv/validator/data/snapshots/1000']],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  from = Option.String('--from', { required: true, description: 'the snapshot directory (data/snapshots/<height> of the node that wrote it)' });
  trustedAppHash = Option.String('--trusted-app-hash', { description: 'the app hash at the snapshot height, as hex, from a source you trust' });

  override async execute(): Promise<number> {
    let trusted: Uint8Array | undefined;
    if (this.trustedAppHash !== undefined) {
      if (!/^[0-9a-fA-F]{64}$/.test(this.trustedAppHash)) {
        this.context.stderr.write(`--trusted-app-hash must be 64 hex digits, got "${this.trustedAppHash}"\n`);
        return 2;
      }
      trusted = Buffer.from(this.trustedAppHash, 'hex');
    }
    const started = Date.now();
    let bytes = 0;
    let lastReport = 0;
    try {
      const result = await restoreHomeSnapshot(this.home, this.from, {
        ...(trusted ? { trustedAppHash: trusted } : {}),
        onChunk: (index, total, size) => {
          bytes += size;
          // A line per second at most (and the last chunk), so a log file stays readable.
          if (Date.now() - lastReport >= 1000 || index + 1 === total) {
            lastReport = Date.now();
            this.context.stdout.write(`verified chunk ${index + 1}/${total} (${megabytes(bytes)} MB)\n`);
          }
        },
      });
      const seconds = (Date.now() - started) / 1000;
      this.context.stdout.write(
        `restored height=${result.height} app_hash=${result.appHash.toUpperCase()} items=${result.items} ss_items=${result.ssItems} ` +
          `${megabytes(result.streamBytes)} MB in ${seconds.toFixed(1)} s\n`,
      );
      return 0;
    } catch (error) {
      this.context.stderr.write(`${failure(error)}\n`);
      return 1;
    }
  }
}
