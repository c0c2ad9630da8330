/**
 * App over real stores: historical reads from the SS (and the typed errors below the
 * earliest or above the latest height), deterministic app hashes across independent stores
 * and with the EVM SS split on and off, reopen after close, genesis handling and mempool
 * admission checks.
 */
import t from 'tap';
import { RLP } from '@ethereumjs/rlp';

import { App, BlockOrderError, GenesisError, parseGenesis, parseGenesisJson } from '../../src/app/index.js';
import { HeightUnavailableError } from '../../src/provider/index.js';
import { CompositeStateStore, DEFAULT_STATE_STORE_CONFIG } from '../../src/store/index.js';
import { memoryLogger } from '../../src/log/logger.js';
import { ETHER, GWEI, header, hex, openApp, signTx, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2);

/** Blocks 1..n: alice sends carol h ether in block h; bob sends alice 1 wei from block 2. */
function workload(height: number): Uint8Array[] {
  const txs = [transfer(alice, carol.address, BigInt(height) * ETHER, height - 1)];
  if (height >= 2) txs.push(transfer(bob, alice.address, 1n, height - 2));
  return txs;
}

async function runChain(app: App, from: number, to: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let h = from; h <= to; h++) hashes.push(hex((await app.executeBlock(header(h), workload(h))).appHash));
  return hashes;
}

t.test('balances and nonces at old heights come from the SS; out-of-range heights are typed errors', async (t) => {
  const dir = tempDir(t);
  const app = await openApp(dir, testGenesis([alice, bob]));
  await app.initChain();
  await runChain(app, 1, 5);
  t.equal(app.height(), 5);
  for (let h = 1; h <= 5; h++) {
    t.equal(stateOf(app).account(carol.address, h).balance, (BigInt(h * (h + 1)) / 2n) * ETHER, `carol's balance at height ${h}`);
    t.equal(stateOf(app).account(alice.address, h).nonce, BigInt(h), `alice's nonce at height ${h}`);
  }
  t.equal(stateOf(app).account(bob.address, 1).nonce, 0n);
  t.equal(stateOf(app).account(bob.address, 'latest').nonce, 4n);
  t.equal(app.earliestHeight(), 1);
  t.throws(() => stateOf(app).account(carol.address, 6), new HeightUnavailableError(6, 'future', 5));
  t.equal(stateOf(app).at(0).height, 1, 'height 0 is the genesis state, which block 1 commits');
  await app.close();

  // Prune the SS below height 4, as the pruning manager does, then read again.
  const ss = await CompositeStateStore.open(dir, { ...DEFAULT_STATE_STORE_CONFIG, keepRecent: 0 }, memoryLogger('warn').logger);
  await ss.prune(3);
  await ss.close();
  const reopened = await openApp(dir, testGenesis([alice, bob]));
  t.teardown(() => reopened.close());
  t.equal(reopened.earliestHeight(), 4);
  t.equal(stateOf(reopened).account(carol.address, 4).balance, 10n * ETHER);
  const error = t.throws(() => stateOf(reopened).account(carol.address, 2)) as Error;
  t.type(error, HeightUnavailableError);
  t.match(error.message, /state at block 2 is not available: the earliest retained block is 4/);
  t.same([(error as HeightUnavailableError).requested, (error as HeightUnavailableError).reason, (error as HeightUnavailableError).bound], [2, 'pruned', 4]);
});

t.test('while a block commits, latest reads and admission see the last committed height, from the SS', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  await runChain(app, 1, 2);
  const before = stateOf(app).account(carol.address, 'latest').balance;
  t.equal(before, 3n * ETHER);
  const running = app.executeBlock(header(3), workload(3));
  let settled = false;
  void running.then(
    () => (settled = true),
    () => (settled = true),
  );
  let seen = false;
  while (!settled && !seen) {
    if (app.committing) {
      seen = true;
      t.equal(app.height(), 2, 'the block being committed is not the latest yet');
      t.equal(stateOf(app).account(carol.address, 'latest').balance, before, 'latest is the state at height 2, not the one being committed');
      t.equal(stateOf(app).account(carol.address, 2).balance, before, 'so is height 2 asked by number');
      t.equal(stateOf(app).account(alice.address, 'latest').nonce, 2n);
      const admitted = app.validateTx(transfer(alice, carol.address, 1n, 2));
      t.ok(admitted.ok, 'admission checks the nonce against height 2 (block 3 uses nonce 2)');
    }
    await new Promise(setImmediate);
  }
  await running;
  t.ok(seen, 'the commit was in flight while the loop looked');
  t.notOk(app.committing);
  t.equal(stateOf(app).account(carol.address, 'latest').balance, 6n * ETHER, 'after the commit latest is height 3');
  t.equal(stateOf(app).account(alice.address, 'latest').nonce, 3n);
});

t.test('the app hash is the same on two independent stores and with the EVM SS split on or off', async (t) => {
  const genesis = testGenesis([alice, bob]);
  const apps = [
    await openApp(tempDir(t), genesis),
    await openApp(tempDir(t), genesis),
    await openApp(tempDir(t), genesis, { split: true }),
  ];
  t.teardown(() => Promise.all(apps.map((a) => a.close())));
  const genesisHashes = await Promise.all(apps.map((a) => a.initChain()));
  t.equal(new Set(genesisHashes.map(hex)).size, 1, 'same genesis app hash');
  const chains = [];
  for (const app of apps) chains.push(await runChain(app, 1, 4));
  t.equal(new Set(chains[0]).size, 4, 'every block changes the app hash');
  t.same(chains[1], chains[0], 'independent store, same hashes');
  t.same(chains[2], chains[0], 'split SS, same hashes');
  t.equal(stateOf(apps[2]!).account(alice.address, 2).nonce, 2n, 'historical evm reads work from the EVM SS');
  t.equal(stateOf(apps[2]!).account(carol.address, 2).balance, 3n * ETHER, 'historical bank reads work from the Cosmos SS');

  const other = await openApp(tempDir(t), testGenesis([alice, bob], 999n * ETHER));
  t.teardown(() => other.close());
  t.not(hex(await other.initChain()), hex(genesisHashes[0]!), 'another genesis gives another hash');
});

t.test('reopen after close continues at the same height and app hash', async (t) => {
  const dir = tempDir(t);
  const genesis = testGenesis([alice, bob]);
  const first = await openApp(dir, genesis);
  await first.initChain();
  const hashes = await runChain(first, 1, 3);
  await first.close();
  t.throws(() => first.height(), /closed/);

  const second = await openApp(dir, genesis);
  t.equal(second.height(), 3);
  t.equal(hex(second.appHash()), hashes[2]);
  t.equal(hex(await second.initChain()), hashes[2], 'initChain after blocks changes nothing');
  await t.rejects(second.executeBlock(header(3), []), BlockOrderError);
  const more = await runChain(second, 4, 5);
  await second.close();

  const reference = await openApp(tempDir(t), genesis);
  t.teardown(() => reference.close());
  await reference.initChain();
  t.same(await runChain(reference, 1, 5), [...hashes, ...more], 'a restarted chain matches an uninterrupted one');
});

t.test('a restart before block 1 stages genesis again; executing before initChain is refused', async (t) => {
  const dir = tempDir(t);
  const genesis = testGenesis([alice]);
  const first = await openApp(dir, genesis);
  const g = await first.initChain();
  t.equal(hex(first.appHash()), hex(g));
  t.equal(stateOf(first).account(alice.address, 'latest').balance, 1000n * ETHER, 'staged genesis is readable at latest');
  await first.close();
  const second = await openApp(dir, genesis);
  t.teardown(() => second.close());
  t.equal(second.height(), 0);
  await t.rejects(second.executeBlock(header(1), []), BlockOrderError);
  t.equal(hex(await second.initChain()), hex(g));
  const block = await second.executeBlock(header(1), [transfer(alice, bob.address, 5n, 0)]);
  t.equal(block.version, 1);
  t.equal(stateOf(second).account(alice.address, 1).nonce, 1n);
  t.equal(stateOf(second).account(bob.address, 1).balance, 5n);
});

t.test('initial_height above 1 numbers the first block', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice], ETHER, { initial_height: 100 }));
  t.teardown(() => app.close());
  await app.initChain();
  await t.rejects(app.executeBlock(header(1), []), /next height is 100/);
  const block = await app.executeBlock(header(100), [transfer(alice, bob.address, 1n, 0)]);
  t.equal(block.version, 100);
  t.equal(app.height(), 100);
  t.equal(app.earliestHeight(), 100);
  t.equal(stateOf(app).account(bob.address, 100).balance, 1n);
});

t.test('genesis parsing fills defaults and names the bad field', async (t) => {
  const base = {
    chain_id: 'c-1',
    genesis_time: '2024-01-01T00:00:00Z',
    validators: [{ address: 'AB'.repeat(20), pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.alloc(32).toString('base64') }, power: 1 }],
  };
  const g = parseGenesis(base);
  t.equal(g.evm_chain_id, 713715);
  t.equal(g.initial_height, 1);
  t.equal(g.params.block_gas_limit, 30_000_000);
  t.same(g.accounts, []);
  t.throws(() => parseGenesisJson('{'), /genesis.json is not valid JSON/);
  t.throws(() => parseGenesis({ ...base, chain_id: '' }), new GenesisError('genesis.json: chain_id must be a non-empty string'));
  t.throws(() => parseGenesis({ ...base, accounts: [{ address: '0x12', balance: '1' }] }), /accounts\[0\]\.address must be a 0x-prefixed 20-byte hex address/);
  t.throws(() => parseGenesis({ ...base, accounts: [{ address: alice.hex, balance: '-1' }] }), /accounts\[0\]\.balance must be a non-negative integer/);
  t.throws(() => parseGenesis({ ...base, accounts: [{ address: alice.hex, balance: '1' }, { address: alice.hex.toUpperCase().replace('0X', '0x'), balance: '2' }] }), /accounts\[1\]\.address repeats/);
  t.throws(() => parseGenesis({ ...base, validators: [] }), /validators must list at least one validator/);
  t.throws(() => parseGenesis({ ...base, validators: [{ ...base.validators[0], pub_key: { value: 'AA==' } }] }), /validators\[0\]\.pub_key/);
  t.throws(() => parseGenesis({ ...base, evm_chain_id: 0 }), /evm_chain_id must be a positive integer/);
  t.throws(() => parseGenesis({ ...base, genesis_time: 'yesterday' }), /genesis_time must be an RFC 3339 time/);
  t.throws(() => parseGenesis({ ...base, params: { block_gas_limit: 1.5 } }), /params\.block_gas_limit/);
});

t.test('validateTx admits future nonces and refuses with typed reasons', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice]));
  t.teardown(() => app.close());
  await app.initChain();
  await app.executeBlock(header(1), [transfer(alice, bob.address, 1n, 0)]);

  const ok = app.validateTx(transfer(alice, bob.address, 1n, 3));
  t.ok(ok.ok);
  if (ok.ok) {
    t.equal(hex(ok.tx.sender), alice.hex);
    t.equal(ok.tx.nonce, 3n, 'a nonce above the state nonce waits in the mempool');
    t.equal(ok.tx.gasLimit, 21_000n);
    t.equal(ok.tx.maxFeePerGas, 2n * GWEI);
    t.equal(ok.tx.type, 2);
  }
  const code = (raw: Uint8Array, baseFee?: bigint) => {
    const v = app.validateTx(raw, baseFee);
    return v.ok ? 'ok' : `${v.error.code}: ${v.error.message}`;
  };
  t.match(code(transfer(alice, bob.address, 1n, 0)), /^nonce_too_low: nonce too low: address .* tx: 0 state: 1/);
  t.match(code(signTx(alice, { nonce: 1, to: bob.address }, 5)), /^wrong_chain_id/);
  t.match(code(transfer(bob, alice.address, 1n, 0)), /^insufficient_funds: insufficient funds for gas \* price \+ value: address 0x[0-9a-f]{40} have 1 want 42000000000001/);
  t.match(code(transfer(alice, bob.address, 1n, 1, { gasLimit: 1000n })), /^intrinsic_gas_too_low/);
  t.match(code(transfer(alice, bob.address, 1n, 1), 3n * GWEI), /^fee_below_base_fee: max fee per gas less than block base fee: .* maxFeePerGas: 2000000000, baseFee: 3000000000/);
  t.match(code(Buffer.from('f8', 'hex')), /^invalid_encoding/);
  // ethereumjs refuses to build such a tx, so the tip field of a signed one is raised.
  const fields = RLP.decode(transfer(alice, bob.address, 1n, 1).subarray(1)) as Uint8Array[];
  fields[2] = Buffer.from((3n * GWEI).toString(16).padStart(8, '0'), 'hex');
  t.match(code(Buffer.concat([Buffer.of(2), RLP.encode(fields)])), /^tip_above_fee_cap: max priority fee per gas higher than max fee per gas: .*maxPriorityFeePerGas: 3000000000, maxFeePerGas: 2000000000/);
});
