/**
 * `stratad start [--home <dir>]`: runs the node of a home until SIGINT or SIGTERM, then shuts
 * down cleanly (no new blocks, servers closed, SS write queue drained, stores closed). When
 * block production fails (an I/O error), the node shuts down the same way and exits with 1.
 */
import { Command, Option } from 'clipanion';
import { StrataNode } from '../../node/node.js';
import { defaultHome } from '../../node/home.js';

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
    let node: StrataNode;
    try {
      node = await StrataNode.start(this.home);
    } catch (error) {
      this.context.stderr.write(`${startFailure(error)}\n`);
      return 1;
    }
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
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      void node.halted.then(finish);
    });
    await node.stop();
    if (!failure) return 0;
    this.context.stderr.write(
      `Consensus failure - height halted: block production failed: ${failure.message}; check for upgrades or halts with \`stratad status\`, ` +
        'fix the cause, then start the node again (it finishes the interrupted block itself)\n',
    );
    return 1;
  }
}
