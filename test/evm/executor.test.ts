/**
 * Block execution through App.executeBlock on real stores: transfers, an ERC-20 deployed and
 * called from compiled bytecode (receipts, logs, contract address, failed calls), and invalid
 * transactions skipped with typed reasons while the rest of the block executes.
 */
import t from 'tap';
import { RLP } from '@ethereumjs/rlp';
import { decodeFunctionResult, encodeDeployData, encodeEventTopics, encodeFunctionData } from 'viem';

import type { ExecutedTx, SkippedTx } from '../../src/evm/executor.js';
import { keccak256 } from '../../src/util/keccak.js';
import { decodeUint } from '../../src/evm/keys.js';
import { BASE_FEE, CHAIN_ID, ETHER, GWEI, TOKEN, bytes, header, hex, openApp, signTx, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2);
const proposer = new Uint8Array(20).fill(0xcb);

function executed(tx: ExecutedTx | SkippedTx | undefined): ExecutedTx {
  if (tx?.kind !== 'executed') throw new Error(`expected an executed tx, got ${tx?.kind === 'skipped' ? tx.reason.message : 'nothing'}`);
  return tx;
}

t.test('transfers move value, bump nonces, pay the proposer the tip and produce receipts', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  const result = await app.executeBlock(header(1, proposer), [
    transfer(alice, carol.address, 3n * ETHER, 0),
    transfer(alice, carol.address, 2n * ETHER, 1),
    transfer(bob, alice.address, ETHER, 0),
  ]);
  t.equal(result.height, 1);
  t.equal(result.version, 1);
  t.same(result.txs.map((x) => x.kind), ['executed', 'executed', 'executed']);
  const fee = 21_000n * 2n * GWEI;
  t.equal(stateOf(app).account(carol.address, 'latest').balance, 5n * ETHER);
  t.equal(stateOf(app).account(alice.address, 'latest').balance, 1000n * ETHER - 5n * ETHER - 2n * fee + ETHER);
  t.equal(stateOf(app).account(alice.address, 'latest').nonce, 2n);
  t.equal(stateOf(app).account(bob.address, 'latest').nonce, 1n);
  t.equal(stateOf(app).account(proposer, 'latest').balance, 3n * 21_000n * GWEI, 'the proposer earns the priority fee; the base fee is burnt');
  const receipts = result.txs.map((x) => executed(x).receipt);
  t.same(receipts.map((r) => r.cumulativeGasUsed), [21_000n, 42_000n, 63_000n]);
  t.same(receipts.map((r) => [r.status, r.gasUsed, r.effectiveGasPrice, r.type]), Array(3).fill([1, 21_000n, 2n * GWEI, 2]));
  t.equal(result.gasUsed, 63_000n);
  t.equal(executed(result.txs[2]).index, 2);
  t.same(executed(result.txs[0]).hash, keccak256(transfer(alice, carol.address, 3n * ETHER, 0)));
  t.equal(result.receiptsRoot.length, 32);
  t.equal(hex(result.logsBloom), hex(new Uint8Array(256)), 'transfers log nothing');
});

t.test('an ERC-20 deploys, transfers with logs, and a failing transfer reverts in its receipt', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  const deploy = signTx(alice, { nonce: 0, gasLimit: 2_000_000n, data: bytes(encodeDeployData({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['Strata Token', 'STR', 1_000_000n] })) });
  const block1 = await app.executeBlock(header(1), [deploy]);
  const deployed = executed(block1.txs[0]);
  t.equal(deployed.receipt.status, 1);
  const token = deployed.receipt.contractAddress!;
  t.ok(token, 'the receipt names the contract');
  t.equal(hex(token), hex(keccak256(RLP.encode([alice.address, new Uint8Array()])).subarray(12)), 'address = keccak(rlp(sender, nonce 0))[12:]');
  t.ok(stateOf(app).code(token, 'latest').length > 0, 'code is stored');
  t.same(stateOf(app).account(token, 'latest').codeHash, keccak256(stateOf(app).code(token, 'latest')));
  t.equal(deployed.receipt.logs.length, 1, 'the mint emits Transfer');

  const send = (nonce: number, to: Uint8Array, amount: bigint) =>
    signTx(alice, { nonce, to: token, gasLimit: 100_000n, data: bytes(encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [hex(to), amount] })) });
  const block2 = await app.executeBlock(header(2), [send(1, bob.address, 250n), transfer(bob, carol.address, 1n, 0), send(2, carol.address, 10n ** 9n)]);
  const [ok, plain, failed] = block2.txs.map(executed);
  t.equal(ok!.receipt.status, 1);
  const [topic0, topic1, topic2] = encodeEventTopics({ abi: TOKEN.abi, eventName: 'Transfer', args: { from: alice.hex, to: bob.hex } }) as `0x${string}`[];
  const log = ok!.receipt.logs[0]!;
  t.equal(hex(log.address), hex(token));
  t.same(log.topics.map(hex), [topic0, topic1, topic2]);
  t.equal(decodeUint(log.data), 250n);
  t.equal(log.logIndex, 0);
  t.equal(plain!.receipt.status, 1);
  t.equal(failed!.receipt.status, 0, 'transferring more than the balance reverts');
  t.equal(failed!.vmError, 'revert');
  t.equal(failed!.receipt.logs.length, 0);
  t.ok(failed!.receipt.gasUsed > 21_000n && failed!.receipt.gasUsed < 100_000n, 'a revert charges the gas used, not the limit');
  t.equal(stateOf(app).account(alice.address, 'latest').nonce, 3n, 'a reverted tx still uses its nonce');
  t.not(hex(block2.logsBloom), hex(new Uint8Array(256)), 'the block bloom carries the log');

  const balanceSlot = (owner: Uint8Array) => keccak256(Buffer.concat([Buffer.alloc(12), owner, Buffer.alloc(31), Buffer.of(3)]));
  t.equal(decodeUint(stateOf(app).storage(token, balanceSlot(bob.address), 'latest')), 250n, 'balanceOf[bob] is in storage slot keccak(bob, 3)');
  const result = await app.call({ to: token, data: bytes(encodeFunctionData({ abi: TOKEN.abi, functionName: 'balanceOf', args: [alice.hex] })) }, stateOf(app).at('latest'));
  t.equal(decodeFunctionResult({ abi: TOKEN.abi, functionName: 'balanceOf', data: hex(result.returnData) }), 1_000_000n - 250n);
});

t.test('invalid transactions are skipped with typed reasons and never fail the block', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  const poor = testKey(9);
  const good = transfer(alice, carol.address, 1n, 0);
  // A zero r recovers no public key.
  const fields = RLP.decode(transfer(alice, carol.address, 1n, 1).subarray(1)) as Uint8Array[];
  fields[10] = new Uint8Array();
  const badSignature = Buffer.concat([Buffer.of(2), RLP.encode(fields)]);
  const raws = [
    good,
    Buffer.from('02c0ffee', 'hex'),
    badSignature,
    signTx(alice, { nonce: 1, to: carol.address, value: 1n }, 1),
    transfer(alice, carol.address, 1n, 0),
    transfer(alice, carol.address, 1n, 7),
    signTx(poor, { nonce: 0, to: carol.address, value: 1n }),
    transfer(bob, carol.address, 2000n * ETHER, 0),
    transfer(bob, carol.address, 1n, 0, { maxFeePerGas: BASE_FEE - 1n, maxPriorityFeePerGas: 0n }),
    transfer(bob, carol.address, 1n, 0, { gasLimit: 20_000n }),
    transfer(bob, carol.address, 1n, 0, { gasLimit: 31_000_000n }),
    transfer(bob, carol.address, 7n, 0),
  ];
  const result = await app.executeBlock(header(1), raws);
  const codes = result.txs.map((x) => (x.kind === 'skipped' ? x.reason.code : 'ok'));
  t.same(codes, [
    'ok',
    'invalid_encoding',
    'invalid_signature',
    'wrong_chain_id',
    'nonce_too_low',
    'nonce_too_high',
    'insufficient_funds',
    'insufficient_funds',
    'fee_below_base_fee',
    'intrinsic_gas_too_low',
    'block_gas_limit_reached',
    'ok',
  ]);
  const reasons = result.txs.flatMap((x) => (x.kind === 'skipped' ? [x.reason.message] : []));
  t.match(reasons[2], `invalid chain id: have 1, want ${CHAIN_ID}`);
  t.match(reasons[3], 'nonce too low');
  t.match(reasons[4], 'tx: 7 state: 1');
  t.match(reasons[5], 'insufficient funds for gas * price + value');
  t.match(reasons[7], `max fee per gas less than block base fee`);
  t.match(reasons[8], 'intrinsic gas too low: have 20000, want 21000');
  t.equal(stateOf(app).account(carol.address, 'latest').balance, 8n, 'only the two valid transfers moved value');
  t.equal(executed(result.txs[11]).index, 1, 'receipt indexes count only executed txs');
  t.equal(result.gasUsed, 42_000n);
});
