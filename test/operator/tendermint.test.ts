/**
 * `stratad tendermint show-validator | show-node-id | unsafe-reset-all` on real homes: the
 * consensus key as CometBFT prints it, the node id peers list, and a reset that empties
 * `data/`, puts the signing state back to height 0, keeps keys and config (and the address
 * book when asked), is refused while the node runs, and leaves a home that starts a chain
 * from genesis again.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { initHome, startNode, stratad } from '../node/fixtures/node-process.js';
import { blockNumber } from './fixtures.js';

t.test('show-validator prints the consensus public key as CometBFT does; show-node-id the node id', async (t) => {
  const home = await initHome(t);
  const key = JSON.parse(readFileSync(join(home.home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
  const shown = stratad(['tendermint', 'show-validator', '--home', home.home]);
  t.equal(shown.status, 0, shown.stderr);
  t.equal(shown.stdout, `{"@type":"/cosmos.crypto.ed25519.PubKey","key":"${key.pub_key.value}"}\n`);
  const genesis = JSON.parse(readFileSync(join(home.home, 'config', 'genesis.json'), 'utf8')) as { validators: Array<{ pub_key: { value: string } }> };
  t.equal(genesis.validators[0]!.pub_key.value, key.pub_key.value, 'the key genesis names');

  const id = stratad(['tendermint', 'show-node-id', '--home', home.home]);
  t.equal(id.status, 0, id.stderr);
  t.match(id.stdout, /^[0-9a-f]{40}\n$/);
  const reinit = stratad(['init', '--chain-id', 'strata-test-1', 'again', '--home', home.home, '--overwrite']);
  t.match(reinit.stdout, /operator address: {2}stratavaloper1[0-9a-z]+/);
  const newId = stratad(['tendermint', 'show-node-id', '--home', home.home]);
  t.match(reinit.stdout, `node id:           ${newId.stdout.trim()}`, 'the id init printed');

  const missing = stratad(['tendermint', 'show-validator', '--home', join(home.home, 'nowhere')]);
  t.equal(missing.status, 1);
  t.match(missing.stderr, /^Private validator file not found: .*nowhere\/config\/priv_validator_key\.json/);
});

t.test('unsafe-reset-all empties data/, resets the signing state, keeps keys and config', async (t) => {
  const home = await initHome(t, 150);
  const config = join(home.home, 'config');
  const before = Object.fromEntries(readdirSync(config).map((f) => [f, readFileSync(join(config, f), 'utf8')]));
  let node = await startNode(t, home);
  while ((await blockNumber(home)) < 4) await new Promise((r) => setTimeout(r, 100));

  const busy = stratad(['tendermint', 'unsafe-reset-all', '--home', home.home]);
  t.equal(busy.status, 1, 'refused while the node runs');
  t.match(busy.stderr, /failed to initialize database: resource temporarily unavailable/);
  t.equal(await node.stop(), 0);
  t.ok(existsSync(join(home.home, 'data', 'blockstore')), 'the refusal removed nothing');
  const signed = JSON.parse(readFileSync(join(home.home, 'data', 'priv_validator_state.json'), 'utf8')) as { height: string };
  t.ok(Number(signed.height) >= 4);

  writeFileSync(join(config, 'addrbook.json'), '{"addrs":[]}\n');
  const kept = stratad(['tendermint', 'unsafe-reset-all', '--keep-addr-book', '--home', home.home]);
  t.equal(kept.status, 0, kept.stderr);
  t.match(kept.stdout, `Removed all blockchain history dir=${join(home.home, 'data')}`);
  t.match(kept.stdout, 'Reset private validator file to genesis state');
  t.match(kept.stdout, 'The address book remains intact');
  t.ok(existsSync(join(config, 'addrbook.json')));
  t.same(readdirSync(join(home.home, 'data')), ['priv_validator_state.json'], 'data/ holds only the reset signing state');
  t.same(JSON.parse(readFileSync(join(home.home, 'data', 'priv_validator_state.json'), 'utf8')), { height: '0', round: 0, step: 0 });
  for (const [file, text] of Object.entries(before)) t.equal(readFileSync(join(config, file), 'utf8'), text, `config/${file} unchanged`);

  const dropped = stratad(['tendermint', 'unsafe-reset-all', '--home', home.home]);
  t.equal(dropped.status, 0, dropped.stderr);
  t.match(dropped.stdout, 'Removed existing address book');
  t.notOk(existsSync(join(config, 'addrbook.json')));

  node = await startNode(t, home);
  t.ok((await blockNumber(home)) <= 2, 'the chain starts again from genesis');
  while ((await blockNumber(home)) < 3) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);
});
