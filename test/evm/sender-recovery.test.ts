/**
 * Batched native sender recovery: the pool against published vectors and @ethereumjs's own
 * recovery for every transaction type, and decodeTxs against decodeTx — the same sender for a
 * good tx, the same error class and text for a bad one.
 */
import t from 'tap';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, concatBytes, eoaCode7702SignAuthorization, hexToBytes } from '@ethereumjs/util';

import { createChainCommon } from '../../src/evm/common.js';
import { nativeCrypto } from '../../src/evm/crypto.js';
import { recoveryItemOf, signingHashOf } from '../../src/evm/signing.js';
import { decodeTx, decodeTxs } from '../../src/evm/validate.js';
import { SenderRecovery, SignedMessageBatch } from '../../src/store/index.js';
import { native } from '../../src/store/native.js';
import { CHAIN_ID, GWEI, testKey } from '../fixtures/chain.js';

const common = createChainCommon(CHAIN_ID);
const recovery = new SenderRecovery();
const to = '0x00000000000000000000000000000000000c0ffe';
const hex = (bytes: Uint8Array | undefined): string | undefined => (bytes ? bytesToHex(bytes) : undefined);

t.test('the pool recovers the EIP-155 example, fails a bad signature alone, and takes an empty batch', async (t) => {
  // EIP-155's example transaction: signing hash, r, s, v = 37 (recovery id 0), key 0x4646…46.
  const example = {
    hash: hexToBytes('0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53'),
    signature: hexToBytes('0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa63627667cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83'),
    recoveryId: 0,
  };
  const bad = { ...example, signature: new Uint8Array(64) };
  const oddId = { ...example, recoveryId: 2 };
  const expected = '0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f';
  const batch = [example, bad, oddId, example, example];
  t.same((await recovery.recover(batch)).map(hex), [expected, undefined, undefined, expected, expected]);
  t.same(recovery.recoverSync(batch).map(hex), [expected, undefined, undefined, expected, expected]);
  t.same(await recovery.recover([]), []);
  t.same(recovery.recoverSync([]), []);
  t.ok(recovery.threads >= 1);
  t.throws(() => recovery.recoverSync([{ ...example, hash: new Uint8Array(31) }]), RangeError);
});

/** One signed tx of each type, signed by test key `i`. */
function signedOfEachType(i: number): Array<{ name: string; tx: TypedTransaction }> {
  const key = testKey(i).key;
  const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const homestead = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: Hardfork.Homestead, customCrypto: nativeCrypto });
  const authorization = eoaCode7702SignAuthorization({ chainId: '0x0', address: to, nonce: '0x0' }, testKey(i + 1).key);
  return [
    { name: 'legacy, pre-EIP-155', tx: createLegacyTx({ nonce: i, gasPrice: 10n * GWEI, gasLimit: 21000n, to, value: 1n }, { common: homestead }).sign(key) },
    { name: 'legacy, EIP-155', tx: createLegacyTx({ nonce: i, gasPrice: 10n * GWEI, gasLimit: 21000n, to, value: 1n }, { common }).sign(key) },
    { name: 'EIP-2930', tx: createAccessList2930Tx({ nonce: i, gasPrice: 10n * GWEI, gasLimit: 30000n, to, accessList: [{ address: to, storageKeys: [] }] }, { common }).sign(key) },
    { name: 'EIP-1559', tx: createFeeMarket1559Tx({ nonce: i, ...fees, gasLimit: 40000n, to, value: 5n, data: `0x${'ab'.repeat(300)}` }, { common }).sign(key) },
    {
      name: 'EIP-4844',
      tx: createBlob4844Tx({ nonce: i, ...fees, gasLimit: 21000n, to, maxFeePerBlobGas: GWEI, blobVersionedHashes: [`0x01${'ab'.repeat(31)}`] }, { common }).sign(key),
    },
    { name: 'EIP-7702', tx: createEOACode7702Tx({ nonce: i, ...fees, gasLimit: 60000n, to, authorizationList: [authorization] }, { common }).sign(key) },
  ];
}

t.test('every transaction type: the native sender is @ethereumjs getSenderAddress', async (t) => {
  const txs = [0, 1, 2, 3].flatMap(signedOfEachType);
  for (const { name, tx } of txs.slice(0, 6)) {
    t.equal(hex(signingHashOf(tx, tx.serialize())), bytesToHex(tx.getMessageToVerifySignature()), `${name}: the signing hash from the raw bytes`);
  }
  const items = txs.map(({ tx }) => recoveryItemOf(tx, tx.serialize()));
  t.ok(items.every((item) => item !== undefined), 'every tx has a recovery item');
  const senders = await recovery.recover(items.map((item) => item!));
  txs.forEach(({ name, tx }, i) => t.equal(hex(senders[i]), tx.getSenderAddress().toString(), name));
});

t.test('decodeTx recovers on its own thread the sender @ethereumjs recovers, for every transaction type', (t) => {
  const homestead = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: Hardfork.Homestead, customCrypto: nativeCrypto });
  for (const { name, tx } of [0, 1].flatMap(signedOfEachType).filter(({ name }) => name !== 'EIP-4844')) {
    const decoded = decodeTx(tx.serialize(), name === 'legacy, pre-EIP-155' ? homestead : common);
    t.equal(decoded.sender.toString(), tx.getSenderAddress().toString(), name);
  }
  t.end();
});

t.test('decodeTxs gives every tx exactly what decodeTx gives it', async (t) => {
  const good = [0, 1, 2].flatMap(signedOfEachType).filter(({ name }) => name !== 'EIP-4844');
  const raws: Uint8Array[] = good.map(({ tx }) => tx.serialize());
  const names = good.map(({ name }) => name);
  const add = (name: string, raw: Uint8Array): void => {
    names.push(name);
    raws.push(raw);
  };
  const sample = createFeeMarket1559Tx({ nonce: 7, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n, to }, { common });
  const signed = sample.sign(testKey(5).key);
  // Signature fields changed in the encoding itself: @ethereumjs refuses to build such a tx.
  const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const withFields = (tx: TypedTransaction, fields: { v?: bigint; r?: bigint; s?: bigint }): Uint8Array => {
    const values = tx.raw() as Uint8Array[];
    const n = values.length;
    if (fields.v !== undefined) values[n - 3] = bigIntToUnpaddedBytes(fields.v);
    if (fields.r !== undefined) values[n - 2] = bigIntToUnpaddedBytes(fields.r);
    if (fields.s !== undefined) values[n - 1] = bigIntToUnpaddedBytes(fields.s);
    const body = RLP.encode(values);
    return tx.type === 0 ? body : concatBytes(new Uint8Array([tx.type]), body);
  };
  add('high s (EIP-2)', withFields(signed, { s: order - signed.s! }));
  add('r = 0', withFields(signed, { r: 0n }));
  add('r at the group order', withFields(signed, { r: order }));
  add('s = 0', withFields(signed, { s: 0n }));
  const legacy = createLegacyTx({ gasPrice: GWEI, gasLimit: 21000n, to }, { common }).sign(testKey(1).key);
  add('legacy v of neither parity', withFields(legacy, { v: 2n * BigInt(CHAIN_ID) + 37n }));
  add('legacy pre-EIP-155 v of neither parity', withFields(legacy, { v: 29n }));
  add('typed y-parity 2', withFields(signed, { v: 2n }));
  add('another chain', createFeeMarket1559Tx({ chainId: 1n, maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n, to }, { common: createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague }) }).sign(testKey(1).key).serialize());
  add('blob tx', signedOfEachType(9).find(({ name }) => name === 'EIP-4844')!.tx.serialize());
  add('garbage', hexToBytes('0xdeadbeef'));
  add('empty', new Uint8Array());
  const tipped = signed.raw() as Uint8Array[];
  tipped[2] = bigIntToUnpaddedBytes(20n * GWEI); // maxPriorityFeePerGas above maxFeePerGas
  add('tip above fee cap', concatBytes(new Uint8Array([2]), RLP.encode(tipped)));
  add('unsigned', createFeeMarket1559Tx({ maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n, to }, { common }).serialize());

  const batch = await decodeTxs(raws, common, recovery);
  t.equal(batch.length, raws.length);
  let failures = 0;
  raws.forEach((raw, i) => {
    let single: { sender: string; hash: string } | { error: string; name: string };
    try {
      const decoded = decodeTx(raw, common);
      single = { sender: decoded.sender.toString(), hash: bytesToHex(decoded.hash) };
    } catch (error) {
      single = { error: (error as Error).message, name: (error as Error).name };
    }
    const result = batch[i]!;
    const fromBatch = result.ok
      ? { sender: result.decoded.sender.toString(), hash: bytesToHex(result.decoded.hash) }
      : { error: (result.error as Error).message, name: (result.error as Error).name };
    if (!result.ok) failures++;
    t.same(fromBatch, single, names[i]!);
  });
  t.equal(failures, 13, 'every bad tx fails, every good one decodes');
  good.forEach(({ name, tx }, i) => {
    const result = batch[i]!;
    t.equal(result.ok && bytesToHex(result.decoded.hash), bytesToHex(tx.hash()), `${name}: the hash of the raw bytes is @ethereumjs's own`);
  });
  const refusal = (name: string): string | undefined => {
    const result = batch[names.indexOf(name)]!;
    return result.ok ? undefined : `${(result.error as Error).name}: ${(result.error as Error).message}`;
  };
  t.equal(refusal('another chain'), `WrongChainIdError: invalid chain id: have 1, want ${CHAIN_ID}`);
  t.match(refusal('garbage'), /^InvalidTxEncodingError: transaction could not be decoded/);
  t.match(refusal('high s (EIP-2)'), /^InvalidSignatureError: invalid sender/);
  t.match(refusal('tip above fee cap'), /^TipAboveFeeCapError/);
  // The tx answers its sender without recovering it again.
  const first = batch[0]!;
  t.ok(first.ok && first.decoded.tx.getSenderAddress() === first.decoded.sender, 'the decoded tx knows its sender');
  t.ok(first.ok && Object.isFrozen(first.decoded.tx), 'the decoded tx is frozen');
});

t.test('a large batch matches one-at-a-time recovery', async (t) => {
  const txs = Array.from({ length: 600 }, (_, i) =>
    createFeeMarket1559Tx({ nonce: i, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n, to, value: BigInt(i) }, { common }).sign(testKey(i % 50).key),
  );
  const batch = await decodeTxs(txs.map((tx) => tx.serialize()), common, recovery);
  const mismatched = batch.filter((r, i) => !r.ok || r.decoded.sender.toString() !== txs[i]!.getSenderAddress().toString());
  t.equal(mismatched.length, 0);
});

t.test('signed messages: hashed and recovered on the pool, each with the hash of its raw bytes', async (t) => {
  const txs = Array.from({ length: 40 }, (_, i) =>
    createFeeMarket1559Tx({ nonce: i, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000n, to, value: BigInt(i) }, { common }).sign(testKey(i % 7).key),
  );
  const batch = new SignedMessageBatch(64); // grows past its first buffer
  txs.forEach((tx, i) => {
    const item = recoveryItemOf(tx, tx.serialize())!;
    const message = tx.getMessageToSign();
    const at = batch.add(i === 3 ? 2 : item.recoveryId, message.length, tx.serialize());
    batch.buffer.set(item.signature, at);
    batch.buffer.set(message, at + 64);
  });
  t.equal(batch.size, 40);
  const answers = await recovery.recoverMessages(batch);
  answers.forEach(({ sender, rawHash }, i) => {
    t.equal(bytesToHex(rawHash), bytesToHex(txs[i]!.hash()), `tx ${i}: the raw bytes' hash`);
    t.equal(hex(sender), i === 3 ? undefined : txs[i]!.getSenderAddress().toString(), `tx ${i}: the sender`);
  });
  t.same(await recovery.recoverMessages(new SignedMessageBatch()), []);
  // The native side checks the lengths against the bytes before anything runs.
  const pool = new native.NativeSenderRecovery(1);
  t.throws(() => pool.recoverMessages(new Uint8Array(70), Int32Array.of(5, 5)), /run past the packed bytes/);
  t.throws(() => pool.recoverMessages(new Uint8Array(80), Int32Array.of(5, 5)), /longer than their lengths say/);
  t.throws(() => pool.recoverMessages(new Uint8Array(75), Int32Array.of(5, -5)), /run past the packed bytes/);
  t.throws(() => pool.recoverMessages(new Uint8Array(75), Int32Array.of(5)), /a message and a raw length/);
});
