/**
 * `stratad tendermint show-validator` and `stratad tendermint show-node-id`: the consensus
 * public key as CometBFT prints it (`{"@type":"/cosmos.crypto.ed25519.PubKey","key":<base64>}`)
 * and the node id (lower hex of the first 20 bytes of sha256 of the node key).
 */
import { Command, Option } from 'clipanion';
import { loadNodeKey } from '../../chain/keys.js';
import { defaultHome, homePaths } from '../../node/home.js';
import { loadHomeValidatorKey } from '../../node/validator-key-file.js';

/** The Cosmos SDK's type URL of an ed25519 consensus public key. */
const ED25519_PUBKEY_TYPE = '/cosmos.crypto.ed25519.PubKey';

export class TendermintShowValidatorCommand extends Command {
  static override paths = [['tendermint', 'show-validator']];
  static override usage = Command.Usage({ description: "print this node's consensus public key (config/priv_validator_key.json)" });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });

  override async execute(): Promise<number> {
    try {
      const key = loadHomeValidatorKey(homePaths(this.home));
      this.context.stdout.write(`${JSON.stringify({ '@type': ED25519_PUBKEY_TYPE, key: key.publicKey.toString('base64') })}\n`);
      return 0;
    } catch (error) {
      this.context.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
}

export class TendermintShowNodeIdCommand extends Command {
  static override paths = [['tendermint', 'show-node-id']];
  static override usage = Command.Usage({ description: "print this node's id (config/node_key.json), as peers name it in persistent_peers" });

  home = Option.String('--home', defaultHome(), { description: 'the node home (default ~/.strata)' });

  override async execute(): Promise<number> {
    try {
      this.context.stdout.write(`${loadNodeKey(homePaths(this.home).nodeKey).id}\n`);
      return 0;
    } catch (error) {
      this.context.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
}
