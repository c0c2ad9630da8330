/**
 * `stratad rollback` on a real home: refused while the node runs, then the state one block
 * back on a stopped node — the app hash it prints is the one the next block's header carries —
 * and the restarted node re-executes the stored block (reproducing that header's app hash) and
 * goes on producing blocks.
 */
import t from 'tap';
import { initHome, startNode, stratad } from './fixtures/node-process.js';
import { rpcResult } from './fixtures/rpc-client.js';

t.test('rollback moves a stopped node back one block and it carries on', async (t) => {
  const home = await initHome(t, 200);
  const node = await startNode(t, home);
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < 4) await new Promise((r) => setTimeout(r, 100));

  const busy = stratad(['rollback', '--home', home.home]);
  t.equal(busy.status, 1, 'refused while the node holds the home');
  t.match(busy.stderr, /resource temporarily unavailable/);

  t.equal(await node.stop(), 0);
  const latest = Number(
    ((await (async () => {
      const restarted = await startNode(t, home);
      const height = await rpcResult(home.http, 'eth_blockNumber');
      await restarted.stop();
      return height;
    })()) as string),
  );
  // The header of the latest block carries the app hash after the block before it.
  const check = await startNode(t, home);
  const top = Number(await rpcResult(home.http, 'eth_blockNumber'));
  const header = (await rpcResult(home.http, 'eth_getBlockByNumber', [`0x${top.toString(16)}`, false])) as { stateRoot: string };
  await check.stop();
  t.ok(top >= latest);

  // debug dump-iavl reads the same state commitment as stratadb dump-iavl.
  const dumped = stratad(['debug', 'dump-iavl', String(top), '--home', home.home]);
  t.equal(dumped.status, 0, dumped.stderr);
  t.match(dumped.stdout, new RegExp(`Tree bank has version ${top} and root hash: [0-9A-F]{64}`));

  const rolled = stratad(['rollback', '--home', home.home]);
  t.equal(rolled.status, 0, rolled.stderr);
  t.match(rolled.stdout, new RegExp(`Rolled back CMS to version ${top - 1}`));
  t.match(rolled.stdout, new RegExp(`Rolled back app state to height ${top - 1} and hash ${header.stateRoot.slice(2).toUpperCase()}`));
  t.match(rolled.stdout, new RegExp(`The block store keeps blocks ${top}\\.\\.${top}; the next start re-executes them`));

  const again = await startNode(t, home);
  t.match(again.output(), /replayed stored block/, 'the stored block was re-executed');
  while (Number(await rpcResult(home.http, 'eth_blockNumber')) < top + 2) await new Promise((r) => setTimeout(r, 100));
  t.pass('and produces blocks past it');
  t.equal(await again.stop(), 0);
});
