/** `stratad init` run as a real process. */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readGenesisFile } from '../../src/chain/genesis-file.js';
import { loadNodeKey, loadSignState, loadValidatorKey } from '../../src/chain/keys.js';
import { loadConfig } from '../../src/config/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

function stratad(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/stratad.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

t.test('init writes a complete home and prints the funded accounts', async (t) => {
  const home = join(t.testdir(), 'home');
  const run = stratad('init', '--chain-id', 'strata-local-7', 'node-a', '--home', home, '--dev-accounts', '2');
  t.equal(run.status, 0, run.stderr);
  for (const file of ['config/app.toml', 'config/config.toml', 'config/genesis.json', 'config/priv_validator_key.json', 'config/node_key.json', 'data/priv_validator_state.json']) {
    t.ok(existsSync(join(home, file)), file);
  }
  t.equal(statSync(join(home, 'config/priv_validator_key.json')).mode & 0o077, 0, 'key file is private');
  const genesis = readGenesisFile(join(home, 'config/genesis.json'));
  const key = loadValidatorKey(join(home, 'config/priv_validator_key.json'));
  t.equal(genesis.chain_id, 'strata-local-7');
  t.equal(genesis.evm_chain_id, 713715);
  t.equal(genesis.validators[0]!.address, key.address);
  t.equal(genesis.accounts.length, 2);
  for (const account of genesis.accounts) {
    t.match(run.stdout, new RegExp(account.address.slice(2), 'i'), 'printed account');
  }
  t.equal((run.stdout.match(/private key 0x[0-9a-f]{64}/g) ?? []).length, 2);
  t.match(run.stdout, loadNodeKey(join(home, 'config/node_key.json')).id);
  t.equal(loadSignState(join(home, 'data/priv_validator_state.json')).height, 0);
  const config = await loadConfig(home);
  t.equal(config.node.moniker, 'node-a');
  t.same(config.warnings, [], 'rendered config loads without warnings');
});

t.test('init refuses an initialised home unless --overwrite', async (t) => {
  const home = join(t.testdir(), 'home');
  t.equal(stratad('init', '--chain-id', 'c-1', 'n', '--home', home).status, 0);
  const before = readFileSync(join(home, 'config/priv_validator_key.json'), 'utf8');
  const refused = stratad('init', '--chain-id', 'c-1', 'n', '--home', home);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /already initialised.*--overwrite/);
  t.equal(readFileSync(join(home, 'config/priv_validator_key.json'), 'utf8'), before, 'keys untouched');
  const replaced = stratad('init', '--chain-id', 'c-2', 'n', '--home', home, '--overwrite', '--dev-accounts', '0');
  t.equal(replaced.status, 0, replaced.stderr);
  t.not(readFileSync(join(home, 'config/priv_validator_key.json'), 'utf8'), before);
  t.equal(readGenesisFile(join(home, 'config/genesis.json')).chain_id, 'c-2');
  t.notMatch(replaced.stdout, /private key/);
});

t.test('init rejects bad arguments', async (t) => {
  const home = join(t.testdir(), 'home');
  const run = stratad('init', '--chain-id', 'c-1', 'n', '--home', home, '--dev-accounts', 'many');
  t.equal(run.status, 2);
  t.match(run.stderr, /--dev-accounts must be an integer/);
  t.notOk(existsSync(home), 'nothing written');
});
