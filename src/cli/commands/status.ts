/** `stratad status [--home <dir>]`: prints the local node's consensus RPC `/status`. */
import { Command, Option } from 'clipanion';
import { loadConfig } from '../../config/index.js';
import { defaultHome } from '../../node/home.js';

export class StatusCommand extends Command {
  static override paths = [['status']];
  static override usage = Command.Usage({ description: "print the local node's /status (sync info, latest block and app hash)" });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });

  override async execute(): Promise<number> {
    const config = await loadConfig(this.home);
    const { host, port } = config.node.rpc.laddr;
    const url = `http://${host === '0.0.0.0' || host === '' ? '127.0.0.1' : host}:${port}/status`;
    try {
      const response = await fetch(url);
      this.context.stdout.write(`${JSON.stringify(await response.json(), null, 2)}\n`);
      return response.ok ? 0 : 1;
    } catch (error) {
      this.context.stderr.write(`cannot reach the node at ${url} (${(error as Error).message}); is \`stratad start --home ${this.home}\` running?\n`);
      return 1;
    }
  }
}
