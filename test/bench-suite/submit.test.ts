/** bench/trace's submission against a real Anvil that mines only on `evm_mine`: a late receipt is nudged (the transaction sent again first), one at a time waits for each receipt, or the wait ends with a typed error. */
import t, { type Test } from 'tap';
import { keccak256 } from '../../src/util/keccak.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { fundOnAnvil, startTracingAnvil } from '../../bench/trace/anvil.js';
import { SubmitError, submitAndMine } from '../../bench/trace/submit.js';
import { probeDeployment } from '../../bench/trace/workload.js';
import type { RpcClient } from '../../bench/node/rpc-client.js';

const CHAIN_ID = 713715;

/** An Anvil that mines only on `evm_mine` (stopped at the end of `t`), and a development account it funded. */
async function startFundedAnvil(t: Test) {
  const anvil = await startTracingAnvil({ chainId: CHAIN_ID, gasLimit: 30_000_000, mining: 'manual', stepsTracing: false });
  t.teardown(() => anvil.stop());
  const [account] = devAccounts(1);
  const sender = { privateKey: account!.privateKey, address: account!.address };
  await fundOnAnvil(anvil.port, [sender.address], 10n ** 21n);
  return { anvil, sender };
}

t.test('a node that leaves transactions pending', async (t) => {
  const { anvil, sender } = await startFundedAnvil(t);
  const { txs } = probeDeployment(sender, CHAIN_ID, 0);

  await t.rejects(submitAndMine(anvil.port, txs, { timeoutMs: 300 }), SubmitError, 'without a nudge the wait ends with a SubmitError');
  let nudges = 0;
  const nudge = async (client: RpcClient) => {
    nudges++;
    await client.call('evm_mine');
  };
  // The first two still wait in Anvil's pool; the next two follow them, and only a nudge mines any.
  const mined = await submitAndMine(anvil.port, probeDeployment(sender, CHAIN_ID, txs.length).txs, { nudge, nudgeAfterMs: 100 });
  t.equal(mined.length, txs.length, 'every receipt arrives once nudged');
  t.ok(mined.every((r) => r.status === '0x1'), 'and every transaction succeeded');
  t.ok(nudges >= 1, `the nudge ran (${nudges} times)`);
});

t.test('one at a time, and a transaction the node dropped is sent again', async (t) => {
  const { anvil, sender } = await startFundedAnvil(t);
  const { txs } = probeDeployment(sender, CHAIN_ID, 0);

  const mineEach = async (client: RpcClient) => {
    await client.call('evm_mine');
  };
  const each = await submitAndMine(anvil.port, txs, { mine: mineEach, oneAtATime: true });
  const blocks = each.map((r) => Number(r.blockNumber));
  t.equal(new Set(blocks).size, txs.length, `each transaction is mined in its own block (${blocks.join(', ')})`);

  // The node forgets every transaction as soon as it has it; only sending again brings them back.
  const dropAll = async (client: RpcClient) => {
    await client.call('anvil_dropAllTransactions');
  };
  const next = probeDeployment(sender, CHAIN_ID, txs.length).txs;
  const mined = await submitAndMine(anvil.port, next, { mine: dropAll, nudge: mineEach, nudgeAfterMs: 100, timeoutMs: 20_000 });
  const hashes = next.map((tx) => `0x${keccak256(Buffer.from(tx.raw.slice(2), 'hex')).toString('hex')}`);
  t.same(mined.map((r) => r.transactionHash), hashes, 'every receipt comes back, in order');
  t.ok(mined.every((r) => r.status === '0x1'), 'every dropped transaction was sent again and mined');
});
