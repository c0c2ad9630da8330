/**
 * Measures transfers per second through App.executeBlock (decode, sender recovery, checks,
 * runTx, changesets, SC commit and SS apply) for a block of 5,000 transfers, and checks the
 * block's effect so the number is for correct work.
 */
import t from 'tap';

import { ETHER, header, openApp, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const SENDERS = 100;
const PER_SENDER = 50;
/** Room for 5,000 transfers (105M gas) in one block. */
const GAS_LIMIT = 200_000_000n;

t.test('a block of 5,000 transfers executes and commits; transfers per second is reported', async (t) => {
  const senders = Array.from({ length: SENDERS }, (_, i) => testKey(100 + i));
  const recipients = Array.from({ length: SENDERS }, (_, i) => testKey(1000 + i));
  const app = await openApp(tempDir(t), testGenesis(senders));
  t.teardown(() => app.close());
  await app.initChain();
  const block = (height: number, round: number) => {
    const txs: Uint8Array[] = [];
    for (let n = 0; n < PER_SENDER; n++) {
      for (let s = 0; s < SENDERS; s++) txs.push(transfer(senders[s]!, recipients[(s + n) % SENDERS]!.address, 1n, round * PER_SENDER + n));
    }
    return txs;
  };
  // A warm-up block, so the measured one runs with loaded code paths.
  await app.executeBlock({ ...header(1), gasLimit: GAS_LIMIT }, block(1, 0));
  const txs = block(2, 1);
  const started = performance.now();
  const result = await app.executeBlock({ ...header(2), gasLimit: GAS_LIMIT }, txs);
  const seconds = (performance.now() - started) / 1000;
  const rate = Math.round(txs.length / seconds);
  t.comment(`executeBlock: ${txs.length} transfers in ${seconds.toFixed(3)} s = ${rate} transfers/s (incl. SC commit and SS apply)`);
  t.equal(result.txs.filter((x) => x.kind === 'executed').length, 5000, 'every transfer executed');
  t.equal(result.gasUsed, 5000n * 21_000n);
  t.equal(stateOf(app).account(recipients[0]!.address, 'latest').balance, 2n * BigInt(PER_SENDER));
  t.equal(stateOf(app).account(senders[0]!.address, 'latest').nonce, 2n * BigInt(PER_SENDER));
  t.ok(stateOf(app).account(senders[0]!.address, 'latest').balance < 1000n * ETHER);
});
