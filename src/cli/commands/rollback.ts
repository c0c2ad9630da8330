/**
 * `stratad rollback [--home <dir>] [--num-blocks N] [--hard]`: brings a stopped node back from
 * an app-hash mismatch. When the app and the block store are at the same height, the app goes
 * back N blocks (default 1) and the stored blocks stay, so the next start re-executes them
 * (as CometBFT's rollback does); `--hard` also removes them from the block store. When the
 * app is ahead (a crash between the commit and the block's storing), it goes back to the
 * block store's height. The state commitment and the state store (both sides of a split node)
 * go back together, so a rollback can be repeated, and `--num-blocks` reaches as far back as
 * the state commitment's history does.
 *
 * `--to-intact` is the remedy a CorruptionError of the state commitment names: it cuts
 * memiavl's or FlatKV's changelog at a damaged entry (the entries before it are checksummed
 * and intact) and brings memiavl and FlatKV back to the last version both reach; the next start
 * re-executes the stored blocks above it. It rolls back nothing further.
 */
import { Command, Option } from 'clipanion';
import type { App } from '../../app/index.js';
import { BlockStore } from '../../chain/block-store.js';
import { loadConfig, type LoadedConfig } from '../../config/index.js';
import { Logger } from '../../log/logger.js';
import { appOptionsOf, openHomeApp } from '../../node/app-options.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from '../../node/home-lock.js';
import { CommitStore } from '../../store/index.js';
import { defaultHome, homePaths, type HomePaths } from '../../node/home.js';

export class RollbackCommand extends Command {
  static override paths = [['rollback']];
  static override usage = Command.Usage({
    description: 'roll a stopped node back from an app-hash mismatch (default: one block)',
    examples: [['Roll back one block', 'stratad rollback'], ['Roll back the app of another home', 'stratad rollback --home /srv/node2']],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  numBlocks = Option.String('--num-blocks', '1', { description: 'blocks to roll back when app and block store agree' });
  toIntact = Option.Boolean('--to-intact', false, {
    description: 'after a damaged memiavl or FlatKV changelog: cut it at the damage and roll the state commitment back to the last intact version',
  });
  hard = Option.Boolean('--hard', false, { description: 'also remove the rolled-back blocks from the block store (a validator cannot sign them again)' });

  override async execute(): Promise<number> {
    const n = Number(this.numBlocks);
    if (!Number.isSafeInteger(n) || n < 1) {
      this.context.stderr.write(`--num-blocks must be a positive integer, got "${this.numBlocks}"\n`);
      return 2;
    }
    const paths = homePaths(this.home);
    if (homeHeldByAnotherProcess(paths.data)) {
      this.context.stderr.write(
        `rollback failed: ${homeHeldMessage(paths.data)}\n` +
          'The node was not shut down properly or is still running: kill the node process (reboot if needed), then repeat the rollback.\n',
      );
      return 1;
    }
    const logger = new Logger({ level: 'warn' });
    let app: App | undefined;
    let store: BlockStore | undefined;
    try {
      const config = await loadConfig(paths.home);
      if (this.toIntact) return await this.#toIntact(paths, config, logger);
      app = await openHomeApp(paths, config, logger, { maintenance: true });
      store = await BlockStore.open(paths.data);
      const appHeight = app.height();
      const storeHeight = store.latestHeight() ?? 0;
      const target = appHeight <= storeHeight ? appHeight - n : storeHeight;
      if (target < 1) throw new Error(`cannot roll back below height 1 (app at ${appHeight}, block store at ${storeHeight})`);
      if (appHeight > target) {
        const hash = await app.rollback(target);
        this.context.stdout.write(`Rolled back SS to version ${target}\n`);
        this.context.stdout.write(`Rolled back CMS to version ${target}\n`);
        this.context.stdout.write(`Rolled back app state to height ${target} and hash ${Buffer.from(hash).toString('hex').toUpperCase()}\n`);
      }
      if (this.hard && storeHeight > target) {
        const removed = await store.truncateAbove(target);
        this.context.stdout.write(`Rolled back block store to height ${target} (${removed} block${removed === 1 ? '' : 's'} removed)\n`);
      }
      if (!this.hard && storeHeight > target) {
        this.context.stdout.write(`The block store keeps blocks ${target + 1}..${storeHeight}; the next start re-executes them\n`);
      }
      return 0;
    } catch (error) {
      this.context.stderr.write(`rollback failed: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    } finally {
      await store?.close().catch(() => undefined);
      await app?.close().catch(() => undefined);
    }
  }

  /** `--to-intact`: the repair open of the SC, then the heights as the next start sees them. */
  async #toIntact(paths: HomePaths, config: LoadedConfig, logger: Logger): Promise<number> {
    const sc = await CommitStore.open(paths.data, { ...appOptionsOf(config, { maintenance: true }).commit, cutDamagedChangelog: true });
    const version = sc.version();
    await sc.close();
    const app = await openHomeApp(paths, config, logger, { maintenance: true });
    let store: BlockStore | undefined;
    try {
      store = await BlockStore.open(paths.data);
      const storeHeight = store.latestHeight() ?? 0;
      this.context.stdout.write(`Rolled back CMS to version ${version}, the last version memiavl and FlatKV both reach intact\n`);
      this.context.stdout.write(`Rolled back app state to height ${version} and hash ${Buffer.from(app.appHash()).toString('hex').toUpperCase()}\n`);
      if (storeHeight > version) {
        this.context.stdout.write(`The block store keeps blocks ${version + 1}..${storeHeight}; the next start re-executes them\n`);
      }
      return 0;
    } finally {
      await store?.close().catch(() => undefined);
      await app.close().catch(() => undefined);
    }
  }
}
