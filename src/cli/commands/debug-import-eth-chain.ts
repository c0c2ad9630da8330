/**
 * `stratad debug import-eth-chain --genesis <genesis.json> --chain <chain.rlp> [--home <dir>]`:
 * creates a node home holding an Ethereum chain — its geth genesis alloc as the state at height
 * 0 and each block of the chain file executed with its own context under the chain's fork
 * rules — so a node started on the home serves and traces that chain (conformance suites
 * recorded against an Ethereum test chain). The home must be empty or absent; a failed import
 * removes what it created.
 */
import { Command, Option } from 'clipanion';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { AppError, parseGenesisJson } from '../../app/index.js';
import { ImportedChainConfig } from '../../app/imported-chain/chain-config.js';
import { readChainFile } from '../../chain/chain-file.js';
import { importedHomeGenesis, importChain } from '../../sync/chain-import.js';
import { writeGenesisFile } from '../../chain/genesis-file.js';
import { validatorKey, writeValidatorKey } from '../../chain/keys.js';
import { BlockStoreError } from '../../chain/block-store.js';
import { configPaths, defaultAppConfig, defaultNodeConfig, loadConfig, renderAppToml, renderConfigToml } from '../../config/index.js';
import { Logger } from '../../log/logger.js';
import { appOptionsOf } from '../../node/app-options.js';
import { defaultHome, homePaths } from '../../node/home.js';
import { StoreError } from '../../store/index.js';

/** The home was not empty; an import never mixes with an existing chain. */
export class ImportHomeNotEmptyError extends Error {
  constructor(readonly home: string) {
    super(`${home} is not empty; import into a new or empty directory (--home), or remove it first`);
    this.name = 'ImportHomeNotEmptyError';
  }
}

function readInput(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ImportInputError(`cannot read the ${what} ${path}: ${(error as Error).message}`);
  }
}

/** An input file is missing or unreadable. */
export class ImportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportInputError';
  }
}

export class DebugImportEthChainCommand extends Command {
  static override paths = [['debug', 'import-eth-chain']];
  static override usage = Command.Usage({
    description: 'create a node home from an Ethereum chain: a geth genesis file and an RLP chain file',
    examples: [['Import a test chain into a new home', 'stratad debug import-eth-chain --genesis genesis.json --chain chain.rlp --home /tmp/eth-home']],
  });

  genesis = Option.String('--genesis', { required: true, description: 'the chain\'s geth genesis.json (config and alloc)' });
  chain = Option.String('--chain', { required: true, description: 'the chain\'s blocks from block 1 as concatenated RLP (geth export)' });
  home = Option.String('--home', defaultHome(), { description: 'the new node home (default ~/.strata); must be empty or absent' });

  override async execute(): Promise<number> {
    const paths = homePaths(this.home);
    if (existsSync(paths.home) && readdirSync(paths.home).length > 0) {
      this.context.stderr.write(`${new ImportHomeNotEmptyError(paths.home).message}\n`);
      return 1;
    }
    const createdHome = !existsSync(paths.home);
    const out = this.context.stdout;
    try {
      const config = ImportedChainConfig.parse(readInput(resolve(this.genesis), 'genesis file').toString('utf8'));
      const blocks = readChainFile(readInput(resolve(this.chain), 'chain file'), config);

      mkdirSync(paths.config, { recursive: true, mode: 0o700 });
      mkdirSync(paths.data, { recursive: true, mode: 0o700 });
      const files = configPaths(paths.home);
      writeFileSync(files.app, renderAppToml(defaultAppConfig()));
      writeFileSync(files.node, renderConfigToml({ ...defaultNodeConfig(), moniker: 'imported-chain' }));
      writeGenesisFile(paths.genesis, importedHomeGenesis(config));
      // The home's own validator key, which its genesis does not name: like an RPC node's, it
      // never signs (the blocks come from the chain file), and the node requires the file.
      writeValidatorKey(paths.validatorKey, validatorKey());
      const loaded = await loadConfig(paths.home);

      const lines: string[] = [];
      const summary = await importChain({
        dataDir: paths.data,
        appOptions: appOptionsOf(loaded),
        genesis: parseGenesisJson(readFileSync(paths.genesis, 'utf8')),
        config,
        blocks,
        logger: new Logger({ level: 'warn', format: loaded.node.logFormat }),
        onBlock: (b) => lines.push(`  block ${b.number} ${b.hash} txs ${b.txs} gas ${b.gasUsed} app hash ${b.appHash}`),
      });
      out.write(`Imported chain ${config.chainId} into ${paths.home}\n`);
      out.write(`  genesis ${summary.genesisHash}\n`);
      for (const line of lines) out.write(`${line}\n`);
      out.write(`${summary.blocks} blocks, ${summary.txs} transactions, final height ${summary.finalHeight} (${summary.headHash}), ${Math.round(summary.ms)} ms\n`);
      return 0;
    } catch (error) {
      const known =
        error instanceof AppError || error instanceof ImportInputError || error instanceof BlockStoreError || error instanceof StoreError;
      this.context.stderr.write(`import failed: ${known ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      // Everything in the home came from this import (it was empty), so nothing of value is lost.
      if (createdHome) rmSync(paths.home, { recursive: true, force: true });
      else for (const entry of readdirSync(paths.home)) rmSync(resolve(paths.home, entry), { recursive: true, force: true });
      return 1;
    }
  }
}
