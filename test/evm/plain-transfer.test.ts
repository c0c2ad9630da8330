/**
 * Plain transfers are applied without the interpreter; the result must be what runTx gives.
 * Random blocks of transfers — to new and existing accounts, to the sender itself, to and from
 * the coinbase, with zero value, zero tip, a fee cap below base fee + tip, a gas limit above
 * 21,000, legacy / EIP-2930 / EIP-1559 types, mixed with transfers the direct path must leave
 * to the VM (to a contract, to a precompile, with calldata, with an access list, nonce gaps) —
 * run both ways on the same state, and the changesets, receipts and receipts root agree.
 */
import t from 'tap';
import { Address } from '@ethereumjs/util';
import { encodeReceipt } from '@ethereumjs/vm';

import { createChainCommon } from '../../src/evm/common.js';
import { executeBlockTxs, type BlockExecution } from '../../src/evm/executor.js';
import { TransferReceipts } from '../../src/evm/plain-transfer.js';
import { BANK_STORE, EVM_STORE, balanceKey, codeHashKey, codeKey, encodeUint, nonceKey } from '../../src/evm/keys.js';
import { keccak256 } from '../../src/util/keccak.js';
import type { StateView } from '../../src/evm/state-manager.js';
import { CHAIN_ID, GWEI, ETHER, signTx, testKey, type TestKey } from '../fixtures/chain.js';

const common = createChainCommon(CHAIN_ID);
const BASE_FEE = GWEI;
const keys: TestKey[] = Array.from({ length: 6 }, (_, i) => testKey(i));
const coinbase = keys[5]!;
/** A contract that stores CALLVALUE: plain-looking transfers to it must run in the VM. */
const CONTRACT = new Uint8Array(20).fill(0xcc);
const CONTRACT_CODE = Buffer.from('3460005500', 'hex');
const IDENTITY_PRECOMPILE = Buffer.concat([Buffer.alloc(19), Buffer.of(4)]);

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Genesis-like state: funded keys (one holds a small balance only), the contract, nothing else. */
function baseView(): StateView {
  const entries = new Map<string, Uint8Array>();
  const put = (store: string, key: Uint8Array, value: Uint8Array) => entries.set(store + Buffer.from(key).toString('hex'), value);
  keys.forEach((k, i) => {
    put(BANK_STORE, balanceKey(k.address), encodeUint(i === 4 ? 10n ** 14n : 100n * ETHER, 32));
    if (i === 1) put(EVM_STORE, nonceKey(k.address), encodeUint(3n, 8));
  });
  put(EVM_STORE, codeKey(CONTRACT), CONTRACT_CODE);
  put(EVM_STORE, codeHashKey(CONTRACT), keccak256(CONTRACT_CODE));
  return { get: (store, key) => entries.get(store + Buffer.from(key).toString('hex')) };
}

function randomBlock(random: () => number): Uint8Array[] {
  const nonces = keys.map((_, i) => (i === 1 ? 3 : 0));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const txs: Uint8Array[] = [];
  for (let i = 0; i < 40; i++) {
    const senderIndex = Math.floor(random() * keys.length);
    const sender = keys[senderIndex]!;
    const fresh = new Uint8Array(20);
    fresh[0] = 0xf0;
    fresh[19] = Math.floor(random() * 4);
    const to = pick([fresh, sender.address, coinbase.address, keys[(senderIndex + 1) % keys.length]!.address, CONTRACT, IDENTITY_PRECOMPILE]);
    const value = pick([0n, 1n, ETHER / 3n, 7n * GWEI]);
    const kind = pick(['1559', '1559', 'legacy', '2930', 'data', 'accessList', 'gap']);
    const nonce = kind === 'gap' ? nonces[senderIndex]! + 1 : nonces[senderIndex]!;
    const gasLimit = pick([21_000n, 21_000n, 50_000n]);
    const tip = pick([0n, GWEI, 3n * GWEI]);
    // Below base fee + tip the sender pays the cap; a cap below the tip cannot be signed.
    const wanted = pick([BASE_FEE + tip, BASE_FEE + tip / 2n, 10n * GWEI, BASE_FEE]);
    const feeCap = wanted < tip ? tip : wanted;
    const fields =
      kind === 'legacy'
        ? { type: 0, gasPrice: feeCap, nonce, to, value, gasLimit }
        : kind === '2930' || kind === 'accessList'
          ? { type: 1, gasPrice: feeCap, nonce, to, value, gasLimit: kind === 'accessList' ? 50_000n : gasLimit, accessList: kind === 'accessList' ? [{ address: `0x${'11'.repeat(20)}`, storageKeys: [] }] : [] }
          : { type: 2, maxFeePerGas: feeCap, maxPriorityFeePerGas: tip, nonce, to, value, gasLimit: kind === 'data' ? 50_000n : gasLimit, data: kind === 'data' ? Buffer.of(1, 2, 3) : new Uint8Array() };
    txs.push(signTx(sender, fields as Parameters<typeof signTx>[1]));
    if (kind !== 'gap') nonces[senderIndex]! += 1;
  }
  return txs;
}

function summary(execution: BlockExecution): unknown {
  return {
    txs: execution.txs.map((tx) => (tx.kind === 'executed' ? { ...tx, raw: undefined } : { kind: tx.kind, position: tx.position, reason: tx.reason.message })),
    gasUsed: execution.gasUsed,
    receiptsRoot: Buffer.from(execution.receiptsRoot).toString('hex'),
    logsBloom: Buffer.from(execution.logsBloom).toString('hex'),
    changesets: execution.changesets.map((c) => ({ name: c.name, pairs: c.pairs.map((p) => [Buffer.from(p.key).toString('hex'), p.value && Buffer.from(p.value).toString('hex')]) })),
  };
}

t.test('plain transfers applied directly equal runTx', async (t) => {
  const ctx = { height: 7, timeMs: 1_704_067_207_000, proposer: coinbase.address, baseFee: BASE_FEE, gasLimit: 30_000_000n };
  t.equal(new Address(coinbase.address).toString(), coinbase.hex, 'the proposer address is the coinbase');
  for (let seed = 1; seed <= 12; seed++) {
    const txs = randomBlock(mulberry32(seed));
    const direct = await executeBlockTxs(common, baseView(), ctx, txs);
    const interpreted = await executeBlockTxs(common, baseView(), ctx, txs, { interpretTransfers: true });
    t.same(summary(direct), summary(interpreted), `seed ${seed}: same receipts, skips and changesets`);
    t.ok(direct.txs.filter((x) => x.kind === 'executed').length > 10, `seed ${seed}: most transactions executed`);
  }
});

t.test('tips credited to the coinbase once are in place whenever the coinbase is read', async (t) => {
  // A coinbase that starts empty, so only this block's tips can pay for its own transfer,
  // and a contract that stores BALANCE(COINBASE) (COINBASE BALANCE PUSH1 0 SSTORE STOP).
  const miner = testKey(9);
  const reader = new Uint8Array(20).fill(0xbb);
  const readerCode = Buffer.from('4131600055' + '00', 'hex');
  const entries = new Map<string, Uint8Array>();
  const put = (store: string, key: Uint8Array, value: Uint8Array) => entries.set(store + Buffer.from(key).toString('hex'), value);
  put(BANK_STORE, balanceKey(keys[0]!.address), encodeUint(100n * ETHER, 32));
  put(EVM_STORE, codeKey(reader), readerCode);
  put(EVM_STORE, codeHashKey(reader), keccak256(readerCode));
  const view: StateView = { get: (store, key) => entries.get(store + Buffer.from(key).toString('hex')) };
  const ctx = { height: 7, timeMs: 1_704_067_207_000, proposer: miner.address, baseFee: BASE_FEE, gasLimit: 30_000_000n };
  const fee = { maxFeePerGas: 4n * GWEI, maxPriorityFeePerGas: 3n * GWEI };
  const txs = [
    signTx(keys[0]!, { nonce: 0, to: keys[1]!.address, value: 1n, ...fee }),
    signTx(keys[0]!, { nonce: 1, to: keys[2]!.address, value: 1n, ...fee }),
    // 2 × 21,000 × 3 gwei of tips: enough for the coinbase's own 21,000 × 4 gwei.
    signTx(miner, { nonce: 0, to: keys[3]!.address, value: 0n, ...fee }),
    signTx(keys[0]!, { nonce: 2, to: keys[1]!.address, value: 1n, ...fee }),
    signTx(keys[0]!, { nonce: 3, to: reader, value: 0n, gasLimit: 60_000n, ...fee }),
  ];
  const direct = await executeBlockTxs(common, view, ctx, txs);
  const interpreted = await executeBlockTxs(common, view, ctx, txs, { interpretTransfers: true });
  t.same(summary(direct), summary(interpreted), 'the same block both ways');
  t.same(direct.txs.map((x) => x.kind), ['executed', 'executed', 'executed', 'executed', 'executed'], "the coinbase's transfer was paid from its tips");
  const stored = direct.changesets.find((c) => c.name === EVM_STORE)?.pairs.find((p) => p.key[0] === 0x03);
  // Four tips of 21,000 × 3 gwei (the coinbase tips itself too), less what the coinbase paid.
  const tipsBefore = 4n * 21_000n * 3n * GWEI - 21_000n * 4n * GWEI;
  t.equal(stored && BigInt(`0x${Buffer.from(stored.value!).toString('hex')}`), tipsBefore, 'the contract saw every earlier tip in the coinbase balance');
});

t.test('accounts read ahead in one packed many-key read per store give the same block as reads one by one', async (t) => {
  const ctx = { height: 7, timeMs: 1_704_067_207_000, proposer: coinbase.address, baseFee: BASE_FEE, gasLimit: 30_000_000n };
  for (let seed = 1; seed <= 6; seed++) {
    const txs = randomBlock(mulberry32(seed));
    const inner = baseView();
    const manyCalls: string[] = [];
    const readAhead = new Set<string>();
    const singles: string[] = [];
    const batched: StateView = {
      get: (store, key) => {
        singles.push(store + Buffer.from(key).toString('hex'));
        return inner.get(store, key);
      },
      getManyPacked: (store, packed, lengths) => {
        manyCalls.push(store);
        const values: Array<Uint8Array | undefined> = [];
        let at = 0;
        for (const length of lengths) {
          const key = packed.subarray(at, at + length);
          at += length;
          readAhead.add(store + Buffer.from(key).toString('hex'));
          values.push(inner.get(store, key));
        }
        t.equal(at, packed.length, 'the key lengths cover the packed keys');
        return values;
      },
    };
    const ahead = await executeBlockTxs(common, batched, ctx, txs);
    const oneByOne = await executeBlockTxs(common, baseView(), ctx, txs);
    t.same(summary(ahead), summary(oneByOne), `seed ${seed}: same receipts, skips and changesets`);
    t.same(manyCalls.sort(), [BANK_STORE, EVM_STORE], `seed ${seed}: one many-key read per store`);
    t.ok(readAhead.has(BANK_STORE + Buffer.from(coinbase.address).toString('hex')), `seed ${seed}: the coinbase is read ahead`);
    t.same(singles.filter((k) => readAhead.has(k)), [], `seed ${seed}: no key read ahead is read again`);
  }
});

t.test('plain transfer receipt hashes are the hashes of @ethereumjs encodings, for every type and gas width', async (t) => {
  // More receipts than the batch's first buffer holds (64), so it grows several times mid-block.
  const receipts = new TransferReceipts();
  const expected: string[] = [];
  for (let round = 0; round < 12; round++) {
    for (const type of [0, 1, 2, 4] as const) {
      for (const gas of [21_000n, 65_535n, 2n ** 24n, 30_000_000n, 2n ** 40n + 5n, 2n ** 63n]) {
        const receipt = encodeReceipt({ status: 1, cumulativeBlockGasUsed: gas + BigInt(round), bitvector: new Uint8Array(256), logs: [] }, type);
        expected.push(Buffer.from(keccak256(receipt)).toString('hex'));
        t.equal(receipts.add(type, gas + BigInt(round)), expected.length - 1, 'add answers the receipt\'s index');
      }
    }
  }
  const hashes = receipts.hashes();
  t.equal(hashes.length, expected.length * 32, '32 bytes per receipt');
  const found = expected.map((_, i) => hashes.subarray(i * 32, i * 32 + 32).toString('hex'));
  t.same(found, expected, 'each hash matches the generic encoding\'s');
  t.equal(new TransferReceipts().hashes().length, 0, 'a block without transfers has no hashes');
});
