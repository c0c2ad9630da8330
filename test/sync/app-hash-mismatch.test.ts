/**
 * A follower whose state diverges (a test switch writes one balance of one block one wei off)
 * stops applying blocks at the next header with `wrong Block.Header.AppHash`, naming both
 * hashes, the block id and the height, while it keeps serving RPC and /status shows the halt;
 * `stratad rollback` and a restart without the switch bring it back onto the chain.
 */
import t from 'tap';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { startNode, stratad } from '../node/fixtures/node-process.js';
import { chainOf, rpcResult } from '../node/fixtures/rpc-client.js';
import { consensus, followerHome, heightOf, validatorHome, waitUntil } from './fixtures/network.js';

t.test('an app-hash mismatch halts the follower; rollback and restart recover it', async (t) => {
  const validator = await validatorHome(t, 200);
  await startNode(t, validator);
  const chain = chainOf(validator.http, validator.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const wallet = createWalletClient({ account: privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex), chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000000bad01' as const;
  const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1') });
  const perturbed = Number((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber);

  const follower = await followerHome(t, validator);
  let run = await startNode(t, follower, { env: { STRATA_TEST_PERTURB_BALANCE_AT: String(perturbed) } });
  await waitUntil('the mismatch logged', () => run.output().includes('wrong Block.Header.AppHash'));
  const line = run.output().split('\n').find((l) => l.includes('wrong Block.Header.AppHash'))!;
  t.match(line, /ERR|"level":"error"/, 'logged as an error');
  const header = (await rpcResult(validator.http, 'eth_getBlockByNumber', [`0x${(perturbed + 1).toString(16)}`, false])) as { hash: string };
  t.match(line, `block ${perturbed + 1}`, 'the height is named');
  t.match(line, header.hash.slice(2).toUpperCase(), 'the block id is named');
  t.match(line, /Expected [0-9A-F]{64}, got [0-9A-F]{64}/, 'both hashes are named');
  const [expected, got] = /Expected ([0-9A-F]{64}), got ([0-9A-F]{64})/.exec(line)!.slice(1);
  t.not(expected, got);

  // Halted: stuck at the perturbed block, serving RPC, /status says why.
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(await heightOf(follower), perturbed, 'no block after the divergence is applied');
  t.ok((await heightOf(validator)) > perturbed + 1, 'the chain moved on');
  const sync = (await consensus(follower, '/status')).result.sync_info as { halted?: string; catching_up: boolean };
  t.match(sync.halted, 'wrong Block.Header.AppHash');
  t.equal(await rpcResult(follower.http, 'eth_blockNumber'), `0x${perturbed.toString(16)}`, 'RPC keeps serving');
  t.equal(await run.stop(), 0);

  const rollback = stratad(['rollback', '--home', follower.home]);
  t.equal(rollback.status, 0, rollback.stderr);
  t.match(rollback.stdout, `Rolled back app state to height ${perturbed - 1}`);

  run = await startNode(t, follower);
  const top = await heightOf(validator);
  await waitUntil(`the follower at ${top}`, async () => (await heightOf(follower)) >= top);
  t.notMatch(run.output(), 'wrong Block.Header.AppHash');
  for (const address of [recipient, wallet.account.address]) {
    t.equal(await rpcResult(follower.http, 'eth_getBalance', [address, 'latest']), await rpcResult(validator.http, 'eth_getBalance', [address, 'latest']));
  }
  const tag = `0x${top.toString(16)}`;
  const [a, b] = await Promise.all([validator, follower].map((n) => rpcResult(n.http, 'eth_getBlockByNumber', [tag, false]) as Promise<{ hash: string }>));
  t.equal(b!.hash, a!.hash);
  t.equal(await run.stop(), 0);
});
