/**
 * The message an eth_call runs as: a plain fee-less call is laid over the chain's template
 * message, and must be the transaction createTx would have built — same fields, same intrinsic
 * gas — without one message's fields or cached data fee leaking into the next.
 */
import t from 'tap';
import { Hardfork } from '@ethereumjs/common';
import { createTx, type AccessList2930Tx, type FeeMarket1559Tx } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';

import { messageTx, type CallRequest } from '../../src/evm/call.js';
import { createChainCommon } from '../../src/evm/common.js';

const common = createChainCommon(713715);
const from = new Address(Buffer.alloc(20, 0xaa));
const to = Buffer.alloc(20, 0xbb);

/** The transaction createTx builds for a fee-less call, the reference the template must match. */
function reference(request: CallRequest, nonce: bigint, gas: bigint) {
  return createTx(
    { type: 2, nonce, gasLimit: gas, to: new Address(request.to!), value: request.value ?? 0n, data: request.data ?? new Uint8Array(), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList: [] },
    { common, freeze: false },
  );
}

t.test('a plain call carries its own fields and the intrinsic gas of its own data', async (t) => {
  const requests: Array<{ request: CallRequest; nonce: bigint; gas: bigint }> = [
    { request: { to, data: Buffer.alloc(4, 1) }, nonce: 0n, gas: 50_000n },
    { request: { to, data: Buffer.alloc(400, 0) }, nonce: 7n, gas: 1_000_000n },
    { request: { to, value: 5n }, nonce: 1n, gas: 30_000_000n },
    { request: { to, data: Buffer.alloc(68, 3) }, nonce: 0n, gas: 50_000n },
  ];
  for (const { request, nonce, gas } of requests) {
    const tx = messageTx(common, request, from, nonce, gas) as FeeMarket1559Tx;
    const want = reference(request, nonce, gas);
    t.equal(tx.type, 2);
    t.equal(tx.nonce, nonce);
    t.equal(tx.gasLimit, gas);
    t.equal(tx.value, request.value ?? 0n);
    t.same(tx.to?.bytes, request.to);
    t.same(tx.data, request.data ?? new Uint8Array());
    t.equal(tx.maxFeePerGas, 0n);
    t.same(tx.accessList, []);
    t.equal(tx.getSenderAddress().toString(), from.toString());
    t.equal(tx.getIntrinsicGas(), want.getIntrinsicGas(), `intrinsic gas of ${request.data?.length ?? 0} data bytes`);
    t.equal(tx.getDataGas(), want.getDataGas());
    t.equal(tx.getUpfrontCost(), want.getUpfrontCost());
  }
});

t.test('messages built one after another share nothing they set', async (t) => {
  const first = messageTx(common, { to, data: Buffer.alloc(10, 1) }, from, 1n, 60_000n);
  const firstGas = first.getIntrinsicGas();
  const second = messageTx(common, { to: Buffer.alloc(20, 0xcc), data: Buffer.alloc(1000, 2) }, new Address(Buffer.alloc(20, 0xdd)), 2n, 90_000n);
  t.ok(second.getIntrinsicGas() > firstGas, 'the second message pays for its longer data');
  t.equal(first.getIntrinsicGas(), firstGas, 'the first keeps its own data fee');
  t.equal(first.nonce, 1n);
  t.equal(first.gasLimit, 60_000n);
  t.same(first.to?.bytes, to);
  t.equal(first.getSenderAddress().toString(), from.toString());
});

t.test('calls with fees, an access list, a creation or out-of-range fields are built and checked in full', async (t) => {
  const priced = messageTx(common, { to, gasPrice: 3n }, from, 0n, 50_000n);
  t.equal(priced.type, 1, 'gasPrice makes an access-list transaction');
  const withFees = messageTx(common, { to, maxFeePerGas: 10n, maxPriorityFeePerGas: 2n }, from, 0n, 50_000n) as FeeMarket1559Tx;
  t.equal(withFees.maxFeePerGas, 10n);
  t.equal(withFees.maxPriorityFeePerGas, 2n);
  const listed = messageTx(common, { to, accessList: [{ address: to, storageKeys: [Buffer.alloc(32, 1)] }] }, from, 0n, 50_000n) as FeeMarket1559Tx;
  t.equal(listed.accessList.length, 1);
  t.ok(listed.getIntrinsicGas() > messageTx(common, { to }, from, 0n, 50_000n).getIntrinsicGas(), 'the access list is paid for');
  const creation = messageTx(common, { data: Buffer.of(0x60, 0x00) }, from, 0n, 100_000n);
  t.equal(creation.to, undefined, 'a creation has no recipient');
  t.throws(() => messageTx(common, { to }, from, 0n, 1n << 64n), /gasLimit/, 'gas of 2^64 is refused as createTx refuses it');
  t.throws(() => messageTx(common, { to, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }, from, 0n, 50_000n), /maxFeePerGas cannot be less than maxPriorityFeePerGas/);
});

t.test('rules without EIP-1559 build priced calls in full, also on a Common moved there after a template', async (t) => {
  const berlin = createChainCommon(713715);
  berlin.setHardfork(Hardfork.Berlin);
  const priced = messageTx(berlin, { to, gasPrice: 1n }, from, 0n, 50_000n) as AccessList2930Tx;
  t.equal(priced.type, 1, 'a priced call is an access-list transaction under Berlin');
  t.throws(() => messageTx(berlin, { to }, from, 0n, 50_000n), /EIP-1559 not enabled/, 'a fee-less call is refused as createTx refuses it');

  const moved = createChainCommon(713715);
  t.equal(messageTx(moved, { to }, from, 0n, 50_000n).type, 2, 'a template under Prague');
  moved.setHardfork(Hardfork.Berlin);
  t.throws(() => messageTx(moved, { to }, from, 0n, 50_000n), /EIP-1559 not enabled/, 'the Prague template is not used under Berlin');
  t.equal(messageTx(moved, { to, gasPrice: 1n }, from, 0n, 50_000n).type, 1);
});
