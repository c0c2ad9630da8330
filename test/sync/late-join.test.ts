/**
 * A follower that joins late catches up; killed with SIGKILL while syncing — right after
 * storing a block, between executing a block and storing it, and after writing a block while
 * its state commits — it restarts, resumes from its last committed block and ends with the
 * validator's chain, nothing lost. A block executed
 * but not stored is rolled back at the restart without a proposal log (a follower signs
 * nothing, so it writes the log only for the first block above its earliest state).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { proposalPath } from '../../src/chain/proposal.js';
import { startNode } from '../node/fixtures/node-process.js';
import { chainOf, rpcResult } from '../node/fixtures/rpc-client.js';
import { consensus, followerHome, heightOf, validatorHome, waitUntil } from './fixtures/network.js';

t.test('a late follower catches up across three kill -9 crashes', async (t) => {
  const validator = await validatorHome(t, 100);
  await startNode(t, validator);
  const chain = chainOf(validator.http, validator.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const senders = devAccounts(3).map((a) => createWalletClient({ account: privateKeyToAccount(a.privateKey as Hex), chain, transport: http() }));
  const recipients = Array.from({ length: 6 }, (_, i) => `0x00000000000000000000000000000000000a11${i.toString(16).padStart(2, '0')}` as const);
  for (let round = 0; round < 6; round++) {
    const hashes = await Promise.all(senders.map((w, i) => w.sendTransaction({ to: recipients[(round + i) % recipients.length]!, value: parseEther('0.01') * BigInt(round + 1) })));
    for (const hash of hashes) await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  await waitUntil('the validator at height 40', async () => (await heightOf(validator)) >= 40);

  const follower = await followerHome(t, validator);
  // First crash: right after block 15 is stored.
  let run = await startNode(t, follower, { env: { STRATA_TEST_SYNC_CRASH_AT: 'after-store@15' } });
  let ended = await run.ended;
  t.equal(ended.signal, 'SIGKILL', 'the follower was killed after storing block 15');
  // Second crash: block 30 executed and committed, not stored.
  run = await startNode(t, follower, { env: { STRATA_TEST_SYNC_CRASH_AT: 'after-execute@30' } });
  ended = await run.ended;
  t.equal(ended.signal, 'SIGKILL', 'the follower was killed between executing block 30 and storing it');
  t.match(run.output(), /applied block from peers .*height=16 /, 'the second run resumed after the stored block 15');
  t.notOk(existsSync(proposalPath(join(follower.home, 'data'))), 'the follower kept no proposal log for block 30');

  // Third crash: block 35 written while its state commits, before it is published.
  run = await startNode(t, follower, { env: { STRATA_TEST_SYNC_CRASH_AT: 'after-block-write@35' } });
  ended = await run.ended;
  t.equal(ended.signal, 'SIGKILL', 'the follower was killed after writing block 35');
  t.match(run.output(), /rolled it back to apply it again from peers .*height=30/, 'the block executed but not stored was rolled back at start');

  run = await startNode(t, follower);
  const top = await heightOf(validator);
  await waitUntil(`the follower at ${top}`, async () => (await heightOf(follower)) >= top);
  t.match(run.output(), /applied block from peers .*height=36 /, 'the last run went on after the written block 35');
  t.notMatch(run.output(), /applied block from peers .*height=35 /, 'block 35 came from the block store (replayed if its state had not committed), not from peers');
  await waitUntil('catching_up false', async () => ((await consensus(follower, '/status')).result.sync_info as { catching_up: boolean }).catching_up === false);
  for (let h = 1; h <= top; h++) {
    const tag = `0x${h.toString(16)}`;
    const [a, b] = await Promise.all([validator, follower].map((n) => rpcResult(n.http, 'eth_getBlockByNumber', [tag, false]) as Promise<{ hash: string; stateRoot: string }>));
    t.equal(b!.hash, a!.hash, `block ${h} is the validator's`);
  }
  for (const r of recipients) {
    t.equal(await rpcResult(follower.http, 'eth_getBalance', [r, 'latest']), await rpcResult(validator.http, 'eth_getBalance', [r, 'latest']), `balance of ${r}`);
  }
  t.equal(await run.stop(), 0, 'the follower stops cleanly');
});
