/**
 * `stratad start [--home <dir>]`: runs the node of a home until SIGINT or SIGTERM, then shuts
 * down cleanly (no new blocks, servers closed, SS write queue drained, stores closed). When
 * block production fails (an I/O error), the node shuts down the same way and exits with 1.
 * An uncaught exception or unhandled rejection writes a crash report, then does the same.
 */
import { Command, Option } from 'clipanion';
import { boundHeapGrowth, confineYoungGenerationToMainThread } from '../../node/heap-growth.js';
import { limitNativeArenas } from '../../node/malloc-arenas.js';
import { StrataNode } from '../../node/node.js';
import { defaultHome } from '../../node/home.js';

/** How long a shutdown after an uncaught failure may take before the process exits anyway. */
const FAILED_SHUTDOWN_MS = 30_000;

/** Errors that mean a bug rather than a refused start; only these are printed with their stack. */
const PROGRAMMING_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError];

/** What an operator reads when the node cannot start: the typed error's message, which says what to do. */
function startFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return PROGRAMMING_ERRORS.some((type) => error instanceof type) ? (error.stack ?? error.message) : error.message;
}

export class StartCommand extends Command {
  static override paths = [['start']];
  static override usage = Command.Usage({
    description: 'run the node (a validator home also produces blocks)',
    examples: [['Run the default home', 'stratad start'], ['Run another home', 'stratad start --home /srv/node2']],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });

  override async execute(): Promise<number> {
    boundHeapGrowth();
    confineYoungGenerationToMainThread();
    limitNativeArenas();
    let node: StrataNode;
    try {
      node = await StrataNode.start(this.home);
    } catch (error) {
      this.context.stderr.write(`${startFailure(error)}\n`);
      return 1;
    }
    let crashed: unknown;
    const failure = await new Promise<Error | undefined>((resolve) => {
      const finish = (outcome: Error | undefined): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve(outcome);
      };
      const stop = (signal: NodeJS.Signals): void => {
        node.logger.info('shutting down', { signal });
        finish(undefined);
      };
      const crash = (kind: string) => (error: unknown): void => {
        node.logger.error(`${kind}; the node stops`, { error: error instanceof Error ? error.message : String(error) });
        const path = node.crashReports.record(kind, error, node.logger);
        const where = path === undefined ? 'no crash report (it could not be written; see the log)' : `crash report: ${path} (bundle it with \`stratad crash-report --home ${this.home}\`)`;
        this.context.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${where}\n`);
        if (crashed === undefined) {
          crashed = error;
          // A process in an unknown state may not finish its shutdown; it must still end.
          setTimeout(() => process.exit(1), FAILED_SHUTDOWN_MS).unref();
          finish(undefined);
        }
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      process.on('uncaughtException', crash('uncaught exception'));
      process.on('unhandledRejection', crash('unhandled rejection'));
      void node.halted.then(finish);
    });
    await node.stop();
    if (crashed !== undefined) return 1;
    if (!failure) return 0;
    this.context.stderr.write(
      `Consensus failure - height halted: block production failed: ${failure.message}; check for upgrades or halts with \`stratad status\`, ` +
        'fix the cause, then start the node again (it finishes the interrupted block itself)\n',
    );
    return 1;
  }
}
