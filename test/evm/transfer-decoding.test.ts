/**
 * The byte-level transfer decoder against @ethereumjs: the same fields for every transfer it
 * takes, nothing taken that @ethereumjs refuses (thousands of mutated encodings), and a
 * DecodedTx that is the one the @ethereumjs path gives, down to the transaction built on demand.
 */
import t from 'tap';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createFeeMarket1559Tx, createTxFromRLP, type FeeMarket1559Tx } from '@ethereumjs/tx';
import { SECP256K1_ORDER_DIV_2, bigIntToUnpaddedBytes, bytesToHex, concatBytes } from '@ethereumjs/util';

import { createChainCommon } from '../../src/evm/common.js';
import { nativeCrypto } from '../../src/evm/crypto.js';
import { decodeTransfer, signature, signingMessage } from '../../src/evm/transfer-decoding.js';
import { decodeTx, decodeTxs, minimumGas } from '../../src/evm/validate.js';
import { SenderRecovery } from '../../src/store/index.js';
import { keccak256 } from '../../src/util/keccak.js';
import { CHAIN_ID, GWEI, testKey } from '../fixtures/chain.js';

const common = createChainCommon(CHAIN_ID);
const chainId = bigIntToUnpaddedBytes(BigInt(CHAIN_ID));
const recovery = new SenderRecovery();

/** A deterministic generator, so a failure names a case that can be run again. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const next = prng(20261127);
const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;

/** Transfers whose fields take every width the decoder handles: zero, one byte, six, seven, eight, thirty-two. */
function transfers(count: number): FeeMarket1559Tx[] {
  const widths = [0n, 1n, 0x7fn, 0x80n, 0xffn, 2n ** 48n - 1n, 2n ** 48n, 2n ** 56n + 3n, 2n ** 63n];
  return Array.from({ length: count }, (_, i) => {
    const tip = pick([0n, 1n, GWEI, 2n ** 60n]);
    const fee = tip + pick([0n, 1n, 10n * GWEI]);
    const to: `0x${string}` = `0x${Buffer.from(Array.from({ length: 20 }, () => Math.floor(next() * 256))).toString('hex')}`;
    return createFeeMarket1559Tx(
      {
        nonce: pick(widths),
        maxPriorityFeePerGas: tip,
        maxFeePerGas: fee,
        gasLimit: pick([21000n, 0n, 1n, 2n ** 64n - 1n]),
        to,
        value: pick([...widths, 2n ** 255n + 17n]),
      },
      { common },
    ).sign(testKey(i % 20).key);
  });
}

/** What @ethereumjs reads of `raw`, in the decoder's terms; undefined when it refuses it. */
function reference(raw: Uint8Array): Record<string, string> | undefined {
  let tx: FeeMarket1559Tx;
  try {
    tx = createTxFromRLP(raw, { common }) as FeeMarket1559Tx;
  } catch {
    return undefined;
  }
  if (!tx.isSigned()) return undefined;
  return {
    nonce: tx.nonce.toString(),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
    maxFeePerGas: tx.maxFeePerGas.toString(),
    gasLimit: tx.gasLimit.toString(),
    to: tx.to?.toString() ?? 'none',
    value: tx.value.toString(),
    signingHash: bytesToHex(tx.getMessageToVerifySignature()),
    signature: bytesToHex(concatBytes(setLength32(tx.r!), setLength32(tx.s!))),
    recoveryId: tx.v!.toString(),
    data: bytesToHex(tx.data),
    accessList: String(tx.accessList.length),
    lowS: String(tx.s! <= SECP256K1_ORDER_DIV_2),
  };
}

function setLength32(n: bigint): Uint8Array {
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
}

function fast(raw: Uint8Array): Record<string, string> | undefined {
  const fields = decodeTransfer(raw, chainId);
  if (!fields) return undefined;
  return {
    nonce: fields.nonce.toString(),
    maxPriorityFeePerGas: fields.maxPriorityFeePerGas.toString(),
    maxFeePerGas: fields.maxFeePerGas.toString(),
    gasLimit: fields.gasLimit.toString(),
    to: bytesToHex(raw.subarray(fields.toStart, fields.toStart + 20)),
    value: fields.value.toString(),
    signingHash: bytesToHex(keccak256(signingMessage(raw, fields))),
    signature: bytesToHex(signature(raw, fields)),
    recoveryId: String(fields.recoveryId),
    data: '0x',
    accessList: '0',
    lowS: 'true',
  };
}

/** `raw` changed in one way an attacker or a faulty peer might: a byte, a length, a cut, an extension. */
function mutate(raw: Uint8Array): Uint8Array {
  const out = Uint8Array.from(raw);
  const at = Math.floor(next() * raw.length);
  switch (Math.floor(next() * 6)) {
    case 0:
      out[at] = Math.floor(next() * 256);
      return out;
    case 1:
      out[at] = (out[at]! + pick([1, 255])) & 0xff; // a length or a value off by one
      return out;
    case 2:
      return out.subarray(0, at);
    case 3:
      return concatBytes(out, Uint8Array.of(Math.floor(next() * 256)));
    case 4:
      return concatBytes(out.subarray(0, at), Uint8Array.of(pick([0, 0x80, 0xc0, 0x81])), out.subarray(at));
    default:
      return concatBytes(out.subarray(0, at), out.subarray(at + 1));
  }
}

/** A signed transfer re-encoded with `change` applied to its RLP fields. */
function reencoded(tx: FeeMarket1559Tx, change: (fields: Array<Uint8Array | unknown[]>) => void): Uint8Array {
  const fields = tx.raw() as Array<Uint8Array | unknown[]>;
  change(fields);
  return concatBytes(Uint8Array.of(2), RLP.encode(fields as Uint8Array[]));
}

t.test('every transfer decodes to @ethereumjs fields', async (t) => {
  const txs = transfers(300);
  let taken = 0;
  for (const tx of txs) {
    const raw = tx.serialize();
    const expected = reference(raw);
    if (expected === undefined) continue;
    // @ethereumjs signs a high-s signature only by accident; those go its own way.
    if (expected.lowS !== 'true') continue;
    t.same(fast(raw), expected, `nonce ${tx.nonce}, value ${tx.value}`);
    taken++;
  }
  t.equal(taken, 300, 'every signed transfer takes the fast path');
});

t.test('no mutated encoding is taken unless @ethereumjs takes it with the same fields', async (t) => {
  const txs = transfers(40).map((tx) => tx.serialize());
  let agreed = 0;
  let accepted = 0;
  let wrong = 0;
  for (let i = 0; i < 6000; i++) {
    let raw = pick(txs);
    for (let k = 1 + Math.floor(next() * 2); k > 0; k--) raw = mutate(raw);
    const got = fast(raw);
    if (got === undefined) continue;
    accepted++;
    const expected = reference(raw);
    if (JSON.stringify(got) === JSON.stringify(expected)) agreed++;
    else if (wrong++ < 5) t.fail(`taken but ${expected ? 'read differently' : 'refused'} by @ethereumjs: ${bytesToHex(raw)}`);
  }
  t.equal(wrong, 0, `every taken mutation agrees (${accepted} of 6000 taken)`);
  t.ok(accepted > 100, 'benign mutations (a value byte) are taken');
  t.equal(agreed, accepted);
});

t.test('encodings @ethereumjs refuses are left to it', async (t) => {
  const tx = transfers(1)[0]!;
  const high = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n - tx.s!;
  const cases: Record<string, Uint8Array> = {
    'leading zero in the nonce': reencoded(tx, (f) => (f[1] = Uint8Array.of(0, 5))),
    'nonce 2^64 - 1 (EIP-2681)': reencoded(tx, (f) => (f[1] = bigIntToUnpaddedBytes(2n ** 64n - 1n))),
    'gas over 64 bits': reencoded(tx, (f) => (f[4] = bigIntToUnpaddedBytes(2n ** 64n))),
    'tip above the fee cap': reencoded(tx, (f) => (f[2] = bigIntToUnpaddedBytes(2n ** 200n))),
    'gas × fee cap above 2^256 - 1': reencoded(tx, (f) => ((f[3] = bigIntToUnpaddedBytes(2n ** 250n)), (f[4] = bigIntToUnpaddedBytes(2n ** 60n)))),
    'y-parity 2': reencoded(tx, (f) => (f[9] = Uint8Array.of(2))),
    'y-parity as 0x00': reencoded(tx, (f) => (f[9] = Uint8Array.of(0))),
    'high s': reencoded(tx, (f) => (f[11] = bigIntToUnpaddedBytes(high))),
    'empty r': reencoded(tx, (f) => (f[10] = new Uint8Array())),
    'another chain': reencoded(tx, (f) => (f[0] = bigIntToUnpaddedBytes(1n))),
    'a 19-byte recipient': reencoded(tx, (f) => (f[5] = new Uint8Array(19))),
    'a 13th field': reencoded(tx, (f) => f.push(Uint8Array.of(1))),
    'trailing byte': concatBytes(tx.serialize(), Uint8Array.of(0)),
  };
  for (const [name, raw] of Object.entries(cases)) {
    t.equal(fast(raw), undefined, name);
    let outcome: string;
    try {
      outcome = bytesToHex(decodeTx(raw, common).hash);
    } catch (error) {
      outcome = (error as Error).name;
    }
    t.not(outcome, bytesToHex(tx.hash()), `${name}: decodeTx does not answer the original tx`);
  }
  // Shapes that are not plain transfers go to @ethereumjs too.
  t.equal(fast(reencoded(tx, (f) => (f[7] = Uint8Array.of(1, 2)))), undefined, 'calldata');
  t.equal(fast(reencoded(tx, (f) => (f[8] = [[new Uint8Array(20), []]]))), undefined, 'an access list');
  t.equal(fast(reencoded(tx, (f) => (f[5] = new Uint8Array()))), undefined, 'a creation');
});

t.test('a transfer decoded from its bytes is the DecodedTx @ethereumjs would give', async (t) => {
  const txs = transfers(30);
  const raws = txs.map((tx) => tx.serialize());
  const batch = await decodeTxs(raws, common, recovery);
  txs.forEach((tx, i) => {
    const single = decodeTx(raws[i]!, common);
    const result = batch[i]!;
    t.ok(result.ok, 'the batch decodes it');
    if (!result.ok) return;
    for (const decoded of [single, result.decoded]) {
      t.same(
        {
          hash: bytesToHex(decoded.hash),
          sender: decoded.sender.toString(),
          type: decoded.type,
          nonce: decoded.nonce,
          gasLimit: decoded.gasLimit,
          maxFeePerGas: decoded.maxFeePerGas,
          maxPriorityFeePerGas: decoded.maxPriorityFeePerGas,
          value: decoded.value,
          to: decoded.to?.toString(),
          transferShape: decoded.transferShape,
          minimumGas: minimumGas(decoded),
        },
        {
          hash: bytesToHex(tx.hash()),
          sender: tx.getSenderAddress().toString(),
          type: 2,
          nonce: tx.nonce,
          gasLimit: tx.gasLimit,
          maxFeePerGas: tx.maxFeePerGas,
          maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
          value: tx.value,
          to: tx.to!.toString(),
          transferShape: true,
          minimumGas: tx.getIntrinsicGas(),
        },
      );
    }
    // Built on demand: the same tx, knowing its sender, frozen.
    const built = single.tx;
    t.equal(bytesToHex(built.serialize()), bytesToHex(raws[i]!));
    t.equal(built.getSenderAddress(), single.sender);
    t.ok(Object.isFrozen(built));
    t.equal(single.tx, built, 'built once');
  });
});

t.test('a signature no key recovers gets @ethereumjs refusal on both paths', async (t) => {
  const tx = transfers(1)[0]!;
  const raw = reencoded(tx, (f) => (f[10] = bigIntToUnpaddedBytes(0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n)));
  t.not(fast(raw), undefined, 'the bytes are a well-formed transfer');
  const error = t.throws(() => decodeTx(raw, common)) as Error;
  t.equal(error.name, 'InvalidSignatureError');
  const [result] = await decodeTxs([raw, raw, raw, raw], common, recovery);
  t.same(result!.ok ? 'decoded' : { name: (result!.error as Error).name, message: (result!.error as Error).message }, { name: error.name, message: error.message });
});

t.test('where EIP-7825 caps gas the decoder stays off, so the cap is enforced', async (t) => {
  const osaka = createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: Hardfork.Osaka, customCrypto: nativeCrypto });
  const tx = createFeeMarket1559Tx({ maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 2n ** 25n, to: `0x${'11'.repeat(20)}` }, { common }).sign(testKey(1).key);
  t.ok(decodeTx(tx.serialize(), common), 'Prague takes it');
  t.throws(() => decodeTx(tx.serialize(), osaka), /gas limit/i, 'Osaka refuses it');
});
