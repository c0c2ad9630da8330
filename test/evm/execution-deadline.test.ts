/**
 * A call's EVM run stops at the deadline it carries, inside the interpreter, so a call that
 * loops until its gas runs out does not hold its thread for as long as the gas lasts — and the
 * VM pool serves the next call on the same thread afterwards.
 */
import t from 'tap';

import { ethCall, estimateGas, type CallEnvironment } from '../../src/evm/call.js';
import { createAccessList } from '../../src/evm/access-list.js';
import { ExecutionDeadlineError, deadlineEnforced } from '../../src/evm/execution-deadline.js';
import { VmPool } from '../../src/evm/vm-pool.js';
import { bytes, header, openApp, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
/** Init code that runs until the gas runs out: JUMPDEST; PUSH1 0; JUMP. */
const LOOP = bytes('0x5b600056');
/** Far more gas than the loop burns before a short deadline (tens of seconds of interpretation). */
const HUGE_GAS = 500_000_000n;

t.test('a looping call stops at its deadline and the VM pool serves the next call', async (t) => {
  t.ok(deadlineEnforced, 'the interpreter checks deadlines');
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  await app.executeBlock(header(1), [transfer(alice, bytes(bob.hex), 1n, 0)]);
  const vms = new VmPool(app.common, undefined);
  const env = (deadlineAt?: number): CallEnvironment => ({ common: app.common, vms, view: stateOf(app).at(1).view, block: header(2), gasCap: HUGE_GAS, deadlineAt });
  const from = bytes(alice.hex);

  await t.rejects(ethCall(env(Date.now() + 100), { from, data: LOOP, gas: HUGE_GAS }), ExecutionDeadlineError, 'eth_call stops at the deadline');
  await t.rejects(estimateGas(env(Date.now() + 100), { from, data: LOOP }), ExecutionDeadlineError, 'eth_estimateGas too');
  await t.rejects(createAccessList(env(Date.now() + 100), { from, data: LOOP, gas: HUGE_GAS }), ExecutionDeadlineError, 'eth_createAccessList too');
  await t.rejects(ethCall(env(Date.now() - 1), { from, data: LOOP, gas: HUGE_GAS }), ExecutionDeadlineError, 'a deadline already past stops the run at once');

  // Without a deadline the same loop runs until its gas is spent: the stop above is the deadline's.
  await t.rejects(ethCall(env(), { from, data: LOOP, gas: 100_000n }), { message: 'out of gas' }, 'unbounded, the loop ends by gas');
  const sent = await ethCall(env(Date.now() + 10_000), { from, to: bytes(bob.hex) });
  t.equal(sent.gasUsed, 21_000n, 'the pool serves a plain call after the stopped ones');
  await t.rejects(ethCall(env(), { from, data: LOOP, gas: 100_000n }), { message: 'out of gas' }, 'a VM reused after a bounded call carries no deadline');
});
