/**
 * `stratad tendermint unsafe-reset-all [--home <dir>] [--keep-addr-book]`: removes all of the
 * node's blockchain data (everything under `data/`) and resets the validator's signing state to
 * height 0, as CometBFT's command does; keys, genesis and configuration stay. Refused while the
 * node runs.
 */
import { Command, Option } from 'clipanion';
import { resetHome } from '../../node/home-reset.js';
import { defaultHome, homePaths } from '../../node/home.js';

export class TendermintUnsafeResetAllCommand extends Command {
  static override paths = [['tendermint', 'unsafe-reset-all']];
  static override usage = Command.Usage({
    description: 'remove all blockchain data of a stopped node and reset its validator signing state (keys and config stay)',
    examples: [['Reset the default home', 'stratad tendermint unsafe-reset-all'], ['Keep the address book', 'stratad tendermint unsafe-reset-all --keep-addr-book']],
  });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });
  keepAddrBook = Option.Boolean('--keep-addr-book', false, { description: 'keep config/addrbook.json' });

  override async execute(): Promise<number> {
    try {
      const outcome = resetHome(homePaths(this.home), { keepAddrBook: this.keepAddrBook });
      const out = this.context.stdout;
      out.write(`Removed all blockchain history dir=${outcome.dataDir}${outcome.removed.length ? ` (${outcome.removed.join(', ')})` : ''}\n`);
      if (outcome.signState) out.write(`Reset private validator file to genesis state stateFile=${outcome.signState}\n`);
      if (outcome.addrBook.action === 'removed') out.write(`Removed existing address book file=${outcome.addrBook.path}\n`);
      if (outcome.addrBook.action === 'kept') out.write(`The address book remains intact file=${outcome.addrBook.path}\n`);
      return 0;
    } catch (error) {
      this.context.stderr.write(`unsafe-reset-all failed: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
}
