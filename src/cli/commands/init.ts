/**
 * `stratad init --chain-id <id> <moniker> [--home <dir>] [--overwrite] [--dev-accounts N]`
 *
 * Creates a node home: config/{app.toml, config.toml, genesis.json, priv_validator_key.json,
 * node_key.json} and data/priv_validator_state.json, with this node as the only validator and
 * N deterministic development accounts funded at genesis (their keys are printed).
 */
import { Command, Option } from 'clipanion';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_EVM_CHAIN_ID, DEV_ACCOUNT_BALANCE, buildGenesis, devAccounts, writeGenesisFile } from '../../chain/genesis-file.js';
import { nodeKey, validatorKey, writeNodeKey, writeSignState, writeValidatorKey } from '../../chain/keys.js';
import { operatorAddress } from '../../app/index.js';
import { configPaths, defaultAppConfig, defaultNodeConfig, renderAppToml, renderConfigToml } from '../../config/index.js';

/** Voting power of the single genesis validator. */
const GENESIS_POWER = 10;

/** `~/.strata`: where the node lives unless --home says otherwise. */
export function defaultHome(): string {
  return join(homedir(), '.strata');
}

export class InitCommand extends Command {
  static override paths = [['init']];
  static override usage = Command.Usage({
    description: 'initialise a node home: configuration, genesis, validator and node keys',
    examples: [
      ['Initialise ~/.strata for a local chain', 'stratad init --chain-id strata-local-1 my-node'],
      ['Initialise another home, replacing it', 'stratad init --chain-id strata-local-1 node2 --home /srv/node2 --overwrite'],
    ],
  });

  moniker = Option.String({ required: true, name: 'moniker' });
  chainId = Option.String('--chain-id', { required: true, description: 'the chain id, e.g. strata-local-1' });
  home = Option.String('--home', { description: 'node home directory (default ~/.strata)' });
  overwrite = Option.Boolean('--overwrite', false, { description: 'replace an existing home\'s configuration, genesis and keys' });
  devAccountCount = Option.String('--dev-accounts', '10', { description: 'development accounts to fund at genesis (0 = none)' });
  evmChainId = Option.String('--evm-chain-id', String(DEFAULT_EVM_CHAIN_ID), { description: 'EVM chain id' });

  override async execute(): Promise<number> {
    const count = Number(this.devAccountCount);
    if (!Number.isSafeInteger(count) || count < 0 || count > 10_000) {
      this.context.stderr.write(`--dev-accounts must be an integer from 0 to 10000, got "${this.devAccountCount}"\n`);
      return 2;
    }
    const evmChainId = Number(this.evmChainId);
    if (!Number.isSafeInteger(evmChainId) || evmChainId <= 0) {
      this.context.stderr.write(`--evm-chain-id must be a positive integer, got "${this.evmChainId}"\n`);
      return 2;
    }
    if (this.chainId.trim() === '' || /\s/.test(this.chainId)) {
      this.context.stderr.write(`--chain-id must be non-empty without spaces, got "${this.chainId}"\n`);
      return 2;
    }
    const home = resolve(this.home ?? defaultHome());
    const configDir = join(home, 'config');
    const dataDir = join(home, 'data');
    if (!this.overwrite && isInitialised(home)) {
      this.context.stderr.write(
        `${home} is already initialised (config/genesis.json or config/priv_validator_key.json exists); ` +
          'pass --overwrite to replace its configuration, genesis and keys, or --home to use another directory\n',
      );
      return 1;
    }
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });

    const node = { ...defaultNodeConfig(), moniker: this.moniker };
    const paths = configPaths(home);
    writeFileSync(paths.app, renderAppToml(defaultAppConfig()));
    writeFileSync(paths.node, renderConfigToml(node));

    const validator = validatorKey();
    const p2p = nodeKey();
    writeValidatorKey(join(configDir, 'priv_validator_key.json'), validator);
    writeNodeKey(join(configDir, 'node_key.json'), p2p);
    writeSignState(join(dataDir, 'priv_validator_state.json'), { height: 0, round: 0, step: 0 });

    const accounts = devAccounts(count);
    const genesis = buildGenesis({
      chainId: this.chainId,
      evmChainId,
      validators: [{ key: validator, power: GENESIS_POWER, name: this.moniker }],
      accounts: accounts.map((a) => ({ address: a.address, balance: DEV_ACCOUNT_BALANCE })),
    });
    writeGenesisFile(join(configDir, 'genesis.json'), genesis);

    const out = this.context.stdout;
    out.write(`Initialised ${home} for chain ${this.chainId} (EVM chain id ${evmChainId})\n`);
    out.write(`  moniker:           ${this.moniker}\n`);
    out.write(`  node id:           ${p2p.id}\n`);
    out.write(`  validator address: ${validator.address}\n`);
    out.write(`  operator address:  ${operatorAddress(Buffer.from(validator.address, 'hex'))}\n`);
    if (accounts.length > 0) {
      out.write(`\nDevelopment accounts, ${DEV_ACCOUNT_BALANCE / 10n ** 18n} ether each (their keys are public: local chains only):\n`);
      accounts.forEach((a, i) => out.write(`  (${i}) ${a.address}  private key ${a.privateKey}\n`));
    }
    return 0;
  }
}

/** True when `home` already holds a genesis or a validator key. */
function isInitialised(home: string): boolean {
  if (!existsSync(home)) return false;
  const config = join(home, 'config');
  if (existsSync(join(config, 'genesis.json')) || existsSync(join(config, 'priv_validator_key.json'))) return true;
  // A data directory with stores in it belongs to a chain even if its config was removed.
  const data = join(home, 'data');
  return existsSync(data) && readdirSync(data).some((name) => name !== 'priv_validator_state.json');
}
