/**
 * Calls reuse pooled VMs, share contract code by hash, skip the repeated jump analysis and
 * remember outcomes per (height, block, request): none of that may change an answer. Calls
 * at different heights, with and without overrides, interleaved and concurrent, must give
 * what a fresh VM gives; a rollback forgets cached outcomes.
 */
import t from 'tap';
import { encodeDeployData, encodeFunctionData } from 'viem';

import type { App, CallBlock } from '../../src/app/index.js';
import { CallRevertedError } from '../../src/evm/call.js';
import { CodeCache } from '../../src/evm/code-cache.js';
import { keccak256 } from '../../src/util/keccak.js';
import { jumpAnalysisCached } from '../../src/evm/jump-analysis-cache.js';
import { encodeUint } from '../../src/evm/keys.js';
import { TOKEN, bytes, header, openApp, signTx, tempDir, testGenesis, testKey } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
const BLOCK: CallBlock = { timeMs: 1_704_067_260_000, proposer: new Uint8Array(20).fill(7) };

function data(functionName: string, args: unknown[]): Uint8Array {
  return bytes(encodeFunctionData({ abi: TOKEN.abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]));
}

async function balanceOf(app: App, token: Uint8Array, owner: `0x${string}`, height: number, overrides: Parameters<App['call']>[2] = [], block: CallBlock | undefined = BLOCK): Promise<bigint> {
  const { returnData } = await app.call({ to: token, data: data('balanceOf', [owner]) }, stateOf(app).at(height), overrides, block);
  return BigInt(`0x${Buffer.from(returnData).toString('hex')}`);
}

t.test('pooled VMs answer each call from its own height and overrides', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  const deploy = signTx(alice, { nonce: 0, gasLimit: 2_000_000n, data: bytes(encodeDeployData({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['T', 'T', 1000n] })) });
  const first = (await app.executeBlock(header(1), [deploy])).txs[0]!;
  if (first.kind !== 'executed' || !first.receipt.contractAddress) throw new Error('deploy failed');
  const token = first.receipt.contractAddress;
  await app.executeBlock(header(2), [signTx(alice, { nonce: 1, to: token, gasLimit: 100_000n, data: data('transfer', [bob.hex, 100n]) })]);
  await app.executeBlock(header(3), [signTx(alice, { nonce: 2, to: token, gasLimit: 100_000n, data: data('transfer', [bob.hex, 50n]) })]);

  t.ok(jumpAnalysisCached, 'the interpreter analysis cache is installed on this @ethereumjs version');
  const slotOf = (owner: Uint8Array) => keccak256(Buffer.concat([Buffer.alloc(12), owner, Buffer.alloc(31), Buffer.of(3)]));
  const override = [{ address: token, override: { stateDiff: [{ slot: slotOf(bob.address), value: encodeUint(7n, 32) }] } }];

  // Interleaved and concurrent: each answer must come from its own height and overrides.
  const answers = await Promise.all([
    balanceOf(app, token, bob.hex, 1),
    balanceOf(app, token, bob.hex, 2, override),
    balanceOf(app, token, bob.hex, 2),
    balanceOf(app, token, bob.hex, 3),
    balanceOf(app, token, alice.hex, 3),
    balanceOf(app, token, bob.hex, 3, override),
    balanceOf(app, token, bob.hex, 3),
  ]);
  t.same(answers, [0n, 7n, 100n, 150n, 850n, 7n, 150n]);
  for (let round = 0; round < 3; round++) {
    t.equal(await balanceOf(app, token, bob.hex, 2), 100n, `height 2, round ${round} (cached after the first)`);
    t.equal(await balanceOf(app, token, bob.hex, 2, override), 7n, 'overrides are never answered from the cache');
    t.equal(await balanceOf(app, token, bob.hex, 3, [], undefined), 150n, 'a call without a header runs every time');
  }

  // A cached revert is rethrown as the same typed error.
  const overdraw = { from: bob.address, to: token, data: data('transfer', [alice.hex, 1_000n]) };
  for (let i = 0; i < 2; i++) await t.rejects(app.call(overdraw, stateOf(app).at(3), [], BLOCK), CallRevertedError);

  // After a rollback height 3 is re-executed differently: the cached answer must not survive.
  await app.rollback(2);
  await app.executeBlock(header(3), [signTx(alice, { nonce: 2, to: token, gasLimit: 100_000n, data: data('transfer', [bob.hex, 1n]) })]);
  t.equal(await balanceOf(app, token, bob.hex, 3), 101n, 'the re-executed height answers anew');
});

t.test('the code cache returns one array per code hash and stays within its byte budget', async (t) => {
  // Each entry counts 256 bytes of overhead besides its code: one 60-byte code fits, two do not.
  const cache = new CodeCache(400);
  const a = new Uint8Array(60).fill(1);
  const hashA = keccak256(a);
  t.equal(cache.put(hashA, a), a);
  t.equal(cache.put(hashA, new Uint8Array(60).fill(1)), a, 'a second copy of the same code yields the cached array');
  t.equal(cache.get(hashA), a);
  const b = new Uint8Array(60).fill(2);
  cache.put(keccak256(b), b);
  t.equal(cache.get(hashA), undefined, 'the oldest entry leaves when the budget is exceeded');
  t.equal(cache.get(keccak256(b)), b);

  // Tiny codes are bounded by their overhead, not by their one byte each.
  const tiny = new CodeCache(10 * 257);
  const codes = Array.from({ length: 20 }, (_, i) => Uint8Array.of(i));
  for (const code of codes) tiny.put(keccak256(code), code);
  t.same(
    codes.map((code) => tiny.get(keccak256(code)) !== undefined),
    codes.map((_, i) => i >= 10),
    'ten 1-byte codes fit in 2,570 bytes: the newest ten are kept',
  );
});
