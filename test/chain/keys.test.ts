/** Validator and node keys in CometBFT's formats, and double-sign refusal across restarts. */
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { verifyBlockSignature } from '../../src/chain/block.js';
import {
  BlockSigner,
  DoubleSignError,
  OverlappingSignError,
  KeyFileError,
  loadNodeKey,
  loadSignState,
  loadValidatorKey,
  nodeKey,
  validatorKey,
  writeNodeKey,
  writeSignState,
  writeValidatorKey,
} from '../../src/chain/keys.js';

const hashOf = (n: number): Buffer => createHash('sha256').update(String(n)).digest();

t.test('priv_validator_key.json follows CometBFT and round-trips', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'priv_validator_key.json');
  const key = validatorKey();
  writeValidatorKey(path, key);
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const pub = Buffer.from(json.pub_key.value, 'base64');
  t.equal(json.pub_key.type, 'tendermint/PubKeyEd25519');
  t.equal(json.priv_key.type, 'tendermint/PrivKeyEd25519');
  t.equal(json.address, createHash('sha256').update(pub).digest().subarray(0, 20).toString('hex').toUpperCase());
  t.same(Buffer.from(json.priv_key.value, 'base64').subarray(32), pub, 'priv_key value is seed ‖ pubkey');
  const loaded = loadValidatorKey(path);
  t.same(loaded.seed, key.seed);
  t.equal(loaded.address, key.address);
});

t.test('a damaged key file is refused with the file named', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'priv_validator_key.json');
  writeValidatorKey(path, validatorKey());
  const json = JSON.parse(readFileSync(path, 'utf8'));
  json.address = '00'.repeat(20);
  writeFileSync(path, JSON.stringify(json));
  t.throws(() => loadValidatorKey(path), { constructor: KeyFileError, message: /address does not match/ });
  t.throws(() => loadValidatorKey(join(dir, 'absent.json')), { constructor: KeyFileError, message: /stratad init/ });
});

t.test('node_key.json gives the node id', async (t) => {
  const path = join(t.testdir(), 'node_key.json');
  const key = nodeKey();
  writeNodeKey(path, key);
  const loaded = loadNodeKey(path);
  t.equal(loaded.id, key.id);
  t.match(loaded.id, /^[0-9a-f]{40}$/);
  t.equal(loaded.id, createHash('sha256').update(key.publicKey).digest().subarray(0, 20).toString('hex'));
});

t.test('signer refuses a second block at a height, across a restart', async (t) => {
  const dir = t.testdir();
  const keyPath = join(dir, 'priv_validator_key.json');
  const statePath = join(dir, 'priv_validator_state.json');
  const key = validatorKey();
  writeValidatorKey(keyPath, key);
  writeSignState(statePath, { height: 0, round: 0, step: 0 });

  const signer = BlockSigner.open(keyPath, statePath);
  const sig1 = await signer.sign(1, hashOf(1));
  t.ok(verifyBlockSignature(hashOf(1), sig1, key.publicKey));
  await signer.sign(2, hashOf(2));
  await t.rejects(signer.sign(2, hashOf(99)), DoubleSignError);
  await t.rejects(signer.sign(1, hashOf(1)), { constructor: DoubleSignError, message: /height 2 was already signed/ });

  // The state reached disk before the signature was returned: a new signer (a restart) knows it.
  const state = loadSignState(statePath);
  t.equal(state.height, 2);
  t.equal(JSON.parse(readFileSync(statePath, 'utf8')).height, '2', 'height is a string as CometBFT writes it');
  const restarted = BlockSigner.open(keyPath, statePath);
  t.equal(restarted.lastHeight, 2);
  await t.rejects(restarted.sign(2, hashOf(98)), { constructor: DoubleSignError, message: /double sign/ });
  t.same(await restarted.sign(2, hashOf(2)), await signer.sign(2, hashOf(2)), 'the same block may be re-signed');
  const sig3 = await restarted.sign(3, hashOf(3));
  t.ok(verifyBlockSignature(hashOf(3), sig3, key.publicKey));

  // A second call while the first one's state is still syncing would decide against a stale
  // state (both could sign height 4 with different blocks): it is refused, and the first lands.
  const first = restarted.sign(4, hashOf(4));
  await t.rejects(restarted.sign(4, hashOf(97)), { constructor: OverlappingSignError, message: /called again before the previous signature was recorded/ });
  t.ok(verifyBlockSignature(hashOf(4), await first, key.publicKey));
  t.equal(loadSignState(statePath).height, 4);
  await t.rejects(restarted.sign(4, hashOf(97)), DoubleSignError, 'once recorded, the other block is a double sign');
});
