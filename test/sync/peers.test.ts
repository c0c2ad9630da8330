/**
 * Peer failures between real processes on loopback: a listed peer whose key does not match
 * its id is refused with both ids, an unreachable one is reported as connection refused, and
 * with no peer at all the node says so; a peer that answers with garbage or an oversized
 * message is dropped while the follower keeps syncing from the validator.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../bench/node/node-process.js';
import { nodeKey } from '../../src/chain/keys.js';
import { memoryLogger } from '../../src/log/logger.js';
import { PeerHost } from '../../src/p2p/index.js';
import { BLOCKS_PROTOCOL, STATUS_PROTOCOL } from '../../src/sync/index.js';
import { startNode } from '../node/fixtures/node-process.js';
import { consensus, followerHome, heightOf, validatorHome, waitUntil } from './fixtures/network.js';

t.test('a wrong peer id, an unreachable peer and no peers at all are reported', async (t) => {
  const validator = await validatorHome(t, 300);
  await startNode(t, validator);
  const listedId = nodeKey().id;
  const closedPort = await freePort();
  const unreachableId = nodeKey().id;
  const follower = await followerHome(t, validator, {
    persistentPeers: `${listedId}@127.0.0.1:${validator.p2p},${unreachableId}@127.0.0.1:${closedPort}`,
  });
  const run = await startNode(t, follower);
  await waitUntil('the id mismatch logged', () => run.output().includes('expected peer id mismatch'));
  const line = run.output().split('\n').find((l) => l.includes('expected peer id mismatch'))!;
  t.match(line, listedId, 'the listed id is named');
  t.match(line, validator.nodeId, 'the id the peer proved is named');
  await waitUntil('connection refused logged', () => run.output().includes(`dial tcp 127.0.0.1:${closedPort}: connect: connection refused`));
  const net = (await consensus(follower, '/net_info')).result;
  t.equal(net.n_peers, '0', 'the impostor is not a peer');
  const sync = (await consensus(follower, '/status')).result.sync_info as { catching_up: boolean; latest_block_height: string };
  t.equal(sync.catching_up, true, 'a follower that reaches no peer is catching up');
  t.equal(sync.latest_block_height, '0');
  await waitUntil('No peers available', () => run.output().includes('No peers available'), 30_000);
  t.equal((await consensus(validator, '/net_info')).result.n_peers, '0', 'the validator holds no connection to the refused follower');
});

t.test('a peer answering with garbage or an oversized message is dropped; syncing goes on', async (t) => {
  const validator = await validatorHome(t, 300);
  await startNode(t, validator);
  const chainId = (JSON.parse(readFileSync(join(validator.home, 'config', 'genesis.json'), 'utf8')) as { chain_id: string }).chain_id;
  // A peer that claims a far height and answers range requests with garbage, then with more
  // bytes than max-packet-msg-payload-size (its own limit is set higher to send them).
  const rogueKey = nodeKey();
  const { logger } = memoryLogger('error');
  const rogue = await PeerHost.start({ seed: rogueKey.seed, listen: { host: '127.0.0.1', port: 0 }, persistentPeers: [], maxMessageBytes: 10_000_000, logger });
  t.teardown(() => rogue.stop());
  const served = { garbage: 0, oversized: 0 };
  await rogue.handle(STATUS_PROTOCOL, () => ({ chainId, height: 1_000_000 }));
  await rogue.handle(BLOCKS_PROTOCOL, () => {
    if (served.garbage <= served.oversized) {
      served.garbage++;
      return { blocks: [Buffer.from('not a block')] };
    }
    served.oversized++;
    return { blocks: [Buffer.alloc(200_000)] };
  });
  const follower = await followerHome(t, validator, {
    persistentPeers: `${validator.nodeId}@127.0.0.1:${validator.p2p},${rogueKey.id}@127.0.0.1:${rogue.port}`,
  });
  const run = await startNode(t, follower);
  await waitUntil('both kinds of bad answers served', () => served.garbage >= 1 && served.oversized >= 1, 60_000).catch((error: unknown) => {
    t.comment(`served ${JSON.stringify(served)}; follower output:\n${run.output().slice(-6000)}`);
    throw error;
  });
  await waitUntil('both drops logged', () => /dropping peer.*undecodable/.test(run.output()) && /dropping peer.*max-packet-msg-payload-size/.test(run.output()));
  const top = await heightOf(validator);
  await waitUntil(`the follower at ${top}`, async () => (await heightOf(follower)) >= top);
  t.ok(top > 0);
  t.equal(run.child.exitCode, null, 'the follower is still running');
  t.equal(await run.stop(), 0);
});
