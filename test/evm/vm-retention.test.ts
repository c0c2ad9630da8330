/**
 * A VM must not outlive its use. @ethereumjs's EVM subscribes to the `hardforkChanged` event of
 * the Common it is built on and never unsubscribes, so every VM built on the chain's long-lived
 * Common would stay reachable from it — with its state manager and the block's whole state —
 * for as long as the node runs. Blocks, calls (including ones that throw, whose VM the pool
 * drops) and simulations each build VMs; none may leave a listener on the chain's Common.
 */
import t from 'tap';

import { createChainCommon } from '../../src/evm/common.js';
import { createChainVM } from '../../src/evm/executor.js';
import { OverlayStateManager } from '../../src/evm/state-manager.js';
import { bytes, header, openApp, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
/** Runs until the gas runs out: JUMPDEST; PUSH1 0; JUMP. */
const LOOP = bytes('0x5b600056');

const listeners = (common: { events: { listenerCount(name: string): number } }) => common.events.listenerCount('hardforkChanged');

t.test('building a VM leaves no listener on the Common it was built from', async (t) => {
  const common = createChainCommon(713715);
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  for (let i = 0; i < 3; i++) await createChainVM(common, new OverlayStateManager(stateOf(app).at(0).view));
  t.equal(listeners(common), 0, 'three VMs built, no listener on the Common');
});

t.test("blocks, calls and failing calls leave no listener on the chain's Common", async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  for (let height = 1; height <= 5; height++) await app.executeBlock(header(height), [transfer(alice, bytes(bob.hex), 1n, height - 1)]);
  const view = () => stateOf(app).at(app.height());
  await Promise.all(Array.from({ length: 4 }, () => app.call({ to: bytes(bob.hex), data: new Uint8Array() }, view())));
  for (let i = 0; i < 3; i++) {
    // A call that fails: the VM pool drops its VM and builds another for the next call.
    await app.call({ data: LOOP, gas: 100_000n }, view()).catch(() => undefined);
  }
  t.equal(listeners(app.common), 0, "five blocks and seven calls later, the chain's Common holds no VM");
});
