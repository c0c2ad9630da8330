/**
 * BLOCKHASH answers from the node's block hashes — in executed blocks and in calls — and is
 * zero for heights the lookup does not know (geth's genesis as this chain serves it).
 */
import t from 'tap';

import { keccak256 } from '../../src/util/keccak.js';
import { bytes, header, hex, openApp, signTx, tempDir, testGenesis, testKey } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

/** Runtime: stores BLOCKHASH(NUMBER − 1) in slot 0. Init code copies and returns it. */
const RUNTIME = '43600190034060005500';
const INIT = `0x600a600c600039600a6000f3${RUNTIME}`;
/** Returns BLOCKHASH(NUMBER − 1) and BLOCKHASH(0). */
const RETURNS_HASHES = bytes('0x4360019003406000526000406020526040' + '6000f3');

const hashOf = (height: number): Uint8Array => keccak256(Buffer.from(`block ${height}`));

t.test('BLOCKHASH reads the attached block hashes', async (t) => {
  const alice = testKey(0);
  const app = await openApp(tempDir(t), testGenesis([alice]));
  t.teardown(() => app.close());
  app.useBlockHashes((height) => (height >= 1 ? hashOf(height) : undefined));
  await app.initChain();
  await app.executeBlock(header(1), []);
  const deployed = (await app.executeBlock(header(2), [signTx(alice, { nonce: 0, gasLimit: 200_000n, data: bytes(INIT) })])).txs[0]!;
  if (deployed.kind !== 'executed' || !deployed.receipt.contractAddress) throw new Error('deploy failed');
  const contract = deployed.receipt.contractAddress;
  await app.executeBlock(header(3), [signTx(alice, { nonce: 1, to: contract, gasLimit: 100_000n })]);
  t.equal(hex(stateOf(app).storage(contract, new Uint8Array(32), 3)), hex(hashOf(2)), 'block 3 stored the hash of block 2');

  const probe = testKey(5).address;
  const out = await app.call({ to: probe }, stateOf(app).at(3), [{ address: probe, override: { code: RETURNS_HASHES } }]);
  t.equal(hex(out.returnData.subarray(0, 32)), hex(hashOf(2)), 'a call at height 3 sees the hash of block 2');
  t.equal(hex(out.returnData.subarray(32, 64)), hex(new Uint8Array(32)), 'genesis hashes to zero');
});
