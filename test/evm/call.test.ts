/**
 * eth_call and eth_estimateGas through App: an ERC-20 read at the latest and an older height,
 * state overrides (balance, nonce, code, state, stateDiff), geth's revert reporting, and gas
 * estimates that are enough but not much more than enough.
 */
import t, { type Test } from 'tap';
import { decodeFunctionResult, encodeDeployData, encodeFunctionData } from 'viem';

import { App } from '../../src/app/index.js';
import { CallFailedError, CallRevertedError } from '../../src/evm/call.js';
import { revertReason as decodeRevertReason } from '../../src/evm/revert-reason.js';
import { keccak256 } from '../../src/util/keccak.js';
import { encodeUint } from '../../src/evm/keys.js';
import { ETHER, GWEI, TOKEN, bytes, header, hex, openApp, signTx, tempDir, testGenesis, testKey } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);

function data(functionName: string, args: unknown[]): Uint8Array {
  return bytes(encodeFunctionData({ abi: TOKEN.abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]));
}

async function balanceOf(app: App, token: Uint8Array, owner: `0x${string}`, height: number | 'latest', overrides = [] as Parameters<App['call']>[2]): Promise<bigint> {
  const { returnData } = await app.call({ to: token, data: data('balanceOf', [owner]) }, stateOf(app).at(height), overrides);
  return decodeFunctionResult({ abi: TOKEN.abi, functionName: 'balanceOf', data: hex(returnData) }) as bigint;
}

/** A chain with the token deployed by alice in block 1 and 100 tokens sent to bob in block 2. */
async function tokenChain(t: Test): Promise<{ app: App; token: Uint8Array }> {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  const deploy = signTx(alice, { nonce: 0, gasLimit: 2_000_000n, data: bytes(encodeDeployData({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['T', 'T', 1000n] })) });
  const block1 = await app.executeBlock(header(1), [deploy]);
  const first = block1.txs[0]!;
  if (first.kind !== 'executed' || !first.receipt.contractAddress) throw new Error('deploy failed');
  const token = first.receipt.contractAddress;
  await app.executeBlock(header(2), [signTx(alice, { nonce: 1, to: token, gasLimit: 100_000n, data: data('transfer', [bob.hex, 100n]) })]);
  return { app, token };
}

t.test('eth_call reads contract state at the latest and at older heights', async (t) => {
  const { app, token } = await tokenChain(t);
  t.equal(await balanceOf(app, token, bob.hex, 'latest'), 100n);
  t.equal(await balanceOf(app, token, bob.hex, 1), 0n, 'before the transfer block');
  t.equal(await balanceOf(app, token, alice.hex, 2), 900n);
  const { gasUsed } = await app.call({ from: alice.address, to: token, data: data('transfer', [bob.hex, 1n]) }, stateOf(app).at('latest'));
  t.ok(gasUsed > 21_000n, 'gasUsed includes intrinsic gas');
  t.equal(await balanceOf(app, token, bob.hex, 'latest'), 100n, 'a call writes nothing');
});

t.test('eth_call applies state overrides: balance, nonce, code, state and stateDiff', async (t) => {
  const { app, token } = await tokenChain(t);
  const slotOf = (owner: Uint8Array) => keccak256(Buffer.concat([Buffer.alloc(12), owner, Buffer.alloc(31), Buffer.of(3)]));
  const carol = testKey(7);
  t.equal(await balanceOf(app, token, carol.hex, 'latest', [{ address: token, override: { stateDiff: [{ slot: slotOf(carol.address), value: encodeUint(55n, 32) }] } }]), 55n, 'stateDiff sets one slot');
  t.equal(await balanceOf(app, token, bob.hex, 'latest', [{ address: token, override: { stateDiff: [{ slot: slotOf(carol.address), value: encodeUint(55n, 32) }] } }]), 100n, 'stateDiff keeps the other slots');
  t.equal(await balanceOf(app, token, bob.hex, 'latest', [{ address: token, override: { state: [{ slot: slotOf(carol.address), value: encodeUint(55n, 32) }] } }]), 0n, 'state replaces all storage');
  t.equal(await balanceOf(app, token, bob.hex, 1, [{ address: token, override: { stateDiff: [{ slot: slotOf(bob.address), value: encodeUint(9n, 32) }] } }]), 9n, 'overrides apply at older heights');

  // Code override: a contract that returns BALANCE(caller) ‖ NONCE is not expressible, so check balance via SELFBALANCE.
  const selfBalance = bytes('0x4760005260206000f3'); // SELFBALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  const target = testKey(8).address;
  const out = await app.call({ to: target }, stateOf(app).at('latest'), [{ address: target, override: { code: selfBalance, balance: 12345n } }]);
  t.equal(BigInt(hex(out.returnData)), 12345n, 'code and balance overrides');

  // Nonce override shows in the address of a contract the call creates (initcode returns ADDRESS).
  const creator = testKey(9);
  const returnsOwnAddress = bytes('0x3060005260206000f3');
  const created = await app.call({ from: creator.address, data: returnsOwnAddress }, stateOf(app).at('latest'), [{ address: creator.address, override: { nonce: 5n } }]);
  const expected = keccak256(Buffer.concat([Buffer.of(0xd6, 0x94), creator.address, Buffer.of(5)])).subarray(12);
  t.equal(hex(created.returnData.subarray(12)), hex(expected), 'the created address uses the overridden nonce');
});

t.test('a reverting call reports geth\'s code 3, the revert data and the decoded reason', async (t) => {
  const { app, token } = await tokenChain(t);
  const error = await app.call({ from: bob.address, to: token, data: data('transfer', [alice.hex, 101n]) }, stateOf(app).at('latest')).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, CallRevertedError);
  const reverted = error as CallRevertedError;
  t.equal(reverted.rpcCode, 3);
  t.equal(reverted.message, 'execution reverted: Token: insufficient balance');
  t.equal(reverted.reason, 'Token: insufficient balance');
  t.equal(hex(reverted.data).slice(0, 10), '0x08c379a0', 'the data is the ABI-encoded Error(string)');
  t.equal(decodeRevertReason(reverted.data), 'Token: insufficient balance');
  t.equal(decodeRevertReason(bytes('0x4e487b710000000000000000000000000000000000000000000000000000000000000011')), 'arithmetic underflow or overflow');
  t.equal(decodeRevertReason(bytes('0xdeadbeef')), undefined, 'custom errors have no reason');
  await t.rejects(app.call({ from: bob.address, to: token, data: data('transfer', [alice.hex, 1n]), gas: 30_000n }, stateOf(app).at('latest')), new CallFailedError('out of gas'));
  await t.rejects(app.call({ from: bob.address, to: token, data: data('transfer', [alice.hex, 1n]), gas: 1000n }, stateOf(app).at('latest')), /intrinsic gas too low: have 1000, want 2\d{4}/);
  await t.rejects(app.call({ from: testKey(5).address, to: bob.address, value: 1n }, stateOf(app).at('latest')), /insufficient funds for gas \* price \+ value/);
  await t.rejects(app.call({ from: bob.address, to: token, data: data('transfer', [alice.hex, 1n]), maxFeePerGas: GWEI / 2n }, stateOf(app).at('latest')), /max fee per gas less than block base fee/);
});

t.test('estimateGas finds enough gas like geth and reports reverts', async (t) => {
  const { app, token } = await tokenChain(t);
  t.equal(await app.estimateGas({ from: alice.address, to: bob.address, value: ETHER }, stateOf(app).at('latest')), 21_000n, 'a plain transfer needs 21000');
  const request = { from: bob.address, to: token, data: data('transfer', [alice.hex, 10n]) };
  const estimate = await app.estimateGas(request, stateOf(app).at('latest'));
  const { gasUsed } = await app.call(request, stateOf(app).at('latest'));
  t.ok(estimate >= gasUsed, `estimate ${estimate} covers the gas used ${gasUsed}`);
  t.ok(estimate <= (gasUsed * 103n) / 100n, `estimate ${estimate} is within 3% of ${gasUsed}`);
  await t.resolves(app.call({ ...request, gas: estimate }, stateOf(app).at('latest')), 'the estimate is enough');
  const block = await app.executeBlock(header(3), [signTx(bob, { nonce: 0, to: token, gasLimit: estimate, data: request.data })]);
  t.equal(block.txs[0]?.kind === 'executed' && block.txs[0].receipt.status, 1, 'a tx with the estimated gas succeeds');
  await t.rejects(app.estimateGas({ from: bob.address, to: token, data: data('transfer', [alice.hex, 10_000n]) }, stateOf(app).at('latest')), new CallRevertedError(new Uint8Array(), 'Token: insufficient balance'));
  await t.rejects(app.estimateGas({ ...request, gas: 25_000n }, stateOf(app).at('latest')), /gas required exceeds allowance \(25000\)/);
  const poor = testKey(6);
  const limited = await app.estimateGas({ from: poor.address, to: bob.address, value: 1n, maxFeePerGas: 2n * GWEI }, stateOf(app).at('latest'), [{ address: poor.address, override: { balance: 21_000n * 2n * GWEI + 1n } }]);
  t.equal(limited, 21_000n, 'estimates with a fee cap stay within the balance allowance');
});
