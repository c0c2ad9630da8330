/** genesis.json building and checking, and the deterministic development accounts. */
import t from 'tap';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import secp256k1 from 'secp256k1';
import {
  GenesisFileError,
  buildGenesis,
  checksumAddress,
  devAccounts,
  ethereumAddress,
  readGenesisFile,
  writeGenesisFile,
} from '../../src/chain/genesis-file.js';
import { keccak256 } from '../../src/chain/hash.js';
import { validatorKey } from '../../src/chain/keys.js';

t.test('development accounts are deterministic and their addresses match their keys', async (t) => {
  const first = devAccounts(5);
  t.same(devAccounts(5), first, 'same seed, same accounts');
  t.same(devAccounts(2), first.slice(0, 2));
  t.equal(new Set(first.map((a) => a.address)).size, 5);
  for (const account of first) {
    const key = Buffer.from(account.privateKey.slice(2), 'hex');
    const pub = secp256k1.publicKeyCreate(key, false);
    t.equal(account.address.toLowerCase(), `0x${keccak256(pub.subarray(1)).subarray(12).toString('hex')}`);
  }
});

t.test('a well-known key maps to its well-known address', async (t) => {
  // Private key 1 → the address every Ethereum library derives for it.
  const key = Buffer.alloc(32);
  key[31] = 1;
  t.equal(checksumAddress(ethereumAddress(key)), '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
});

t.test('genesis round-trips and defaults the EVM chain id', async (t) => {
  const path = join(t.testdir(), 'genesis.json');
  const key = validatorKey();
  const genesis = buildGenesis({
    chainId: 'strata-test-1',
    validators: [{ key, power: 10, name: 'v0' }],
    accounts: [{ address: devAccounts(1)[0]!.address, balance: 5n }],
  });
  writeGenesisFile(path, genesis);
  const read = readGenesisFile(path);
  t.same(read, genesis);
  t.equal(read.evm_chain_id, 713715);
  t.equal(read.initial_height, '1');
  t.equal(read.validators[0]!.address, key.address);
  t.match(read.accounts[0]!.address, /^0x[0-9a-f]{40}$/);
});

t.test('a malformed genesis is refused with the field named', async (t) => {
  const path = join(t.testdir(), 'genesis.json');
  const genesis = buildGenesis({ chainId: 'c', validators: [{ key: validatorKey(), power: 1, name: 'v' }], accounts: [] });
  writeFileSync(path, JSON.stringify({ ...genesis, evm_chain_id: 'x' }));
  t.throws(() => readGenesisFile(path), { constructor: GenesisFileError, message: /evm_chain_id/ });
  writeFileSync(path, JSON.stringify({ ...genesis, accounts: [{ address: '0x12', balance: '1' }] }));
  t.throws(() => readGenesisFile(path), /account address "0x12"/);
  t.throws(() => buildGenesis({ chainId: ' ', validators: [], accounts: [] }), GenesisFileError);
});
