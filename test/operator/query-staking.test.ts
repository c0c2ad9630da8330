/**
 * `stratad query staking validator <valoper>` answers from the node's own state: the genesis
 * validator's record, written into the `staking` store at genesis, read from the home's state
 * store (beside a running node, changing nothing) or, before the first block, from the genesis
 * state. YAML by default, JSON with --output json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { operatorAddress } from '../../src/app/index.js';
import { initHome, startNode, stratad } from '../node/fixtures/node-process.js';
import { blockNumber } from './fixtures.js';

/** The operator address of a 20-byte hex address, by the node's own encoder. */
function operatorOf(hexAddress: string): string {
  return operatorAddress(Buffer.from(hexAddress, 'hex'));
}

t.test('the genesis validator is a real record of the staking store', async (t) => {
  const home = await initHome(t, 150);
  const genesis = JSON.parse(readFileSync(join(home.home, 'config', 'genesis.json'), 'utf8')) as { validators: Array<{ address: string }> };
  const operator = operatorOf(genesis.validators[0]!.address);
  t.match(operator, /^stratavaloper1[02-9ac-hj-np-z]{38}$/);
  const key = JSON.parse(readFileSync(join(home.home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };

  const before = stratad(['query', 'staking', 'validator', operator, '--home', home.home, '--output', 'json']);
  t.equal(before.status, 0, before.stderr);
  const record = JSON.parse(before.stdout) as Record<string, unknown>;
  t.equal(record.operator_address, operator);
  t.same(record.consensus_pubkey, { '@type': '/cosmos.crypto.ed25519.PubKey', key: key.pub_key.value });
  t.equal(record.status, 'BOND_STATUS_BONDED');
  t.equal(record.voting_power, '10');
  t.equal(record.tokens, '10000000');
  t.equal(record.jailed, false);
  t.equal((record.description as { moniker: string }).moniker, 'test-node');

  const node = await startNode(t, home);
  while ((await blockNumber(home)) < 3) await new Promise((r) => setTimeout(r, 100));
  // Read from the running node's state store, beside it.
  const yaml = stratad(['query', 'staking', 'validator', operator, '--home', home.home]);
  t.equal(yaml.status, 0, yaml.stderr);
  t.match(yaml.stdout, `consensus_pubkey:\n  '@type': /cosmos.crypto.ed25519.PubKey\n  key: ${key.pub_key.value}\n`);
  t.match(yaml.stdout, /\njailed: false\n/);
  t.match(yaml.stdout, `\noperator_address: ${operator}\n`);
  t.match(yaml.stdout, /\nstatus: BOND_STATUS_BONDED\n/);
  t.match(yaml.stdout, /\ntokens: "10000000"\n/);
  t.match(yaml.stdout, /\nvoting_power: "10"\n/);
  t.equal(await node.stop(), 0);

  const unknown = stratad(['query', 'staking', 'validator', operatorOf('00'.repeat(20)), '--home', home.home]);
  t.equal(unknown.status, 1);
  t.match(unknown.stderr, /validator stratavaloper1\S+ does not exist \(state at height [1-9]\d*\)/, 'read from the committed state');
  const wrongPrefix = stratad(['query', 'staking', 'validator', 'cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a', '--home', home.home]);
  t.equal(wrongPrefix.status, 1);
  t.match(wrongPrefix.stderr, /stratavaloper/);
});
