/**
 * `stratad rollback` goes back any number of blocks and can be repeated: the state commitment,
 * the state store (one SS, or the Cosmos SS and the five EVM SS DBs of a split node) and the
 * block store's view go back together. Each rollback prints the new height and the app hash
 * there (the one the next stored header carries); afterwards no SS DB holds a version above
 * it; the restarted node re-executes the stored blocks, reproduces every header's app hash and
 * the historical balances it served before, and goes on producing.
 */
import t from 'tap';
import { rpcResult } from '../node/fixtures/rpc-client.js';
import { startNode, stratad } from '../node/fixtures/node-process.js';
import { LAYOUTS, blockNumber, homeWithLayout, parseDumpDb, stateRootOf, transfers } from './fixtures.js';

const RECIPIENT = '0x00000000000000000000000000000000000a11ce' as const;

/** The height a rollback printed, with its app hash. */
function rolledBackTo(stdout: string): { height: number; hash: string } {
  const m = /Rolled back app state to height (\d+) and hash ([0-9A-F]{64})/.exec(stdout);
  if (!m) throw new Error(`no "Rolled back app state" line in: ${stdout}`);
  return { height: Number(m[1]), hash: m[2]! };
}

for (const layout of LAYOUTS) {
  t.test(`rollback goes back several blocks, twice, and the node carries on (${layout.name})`, async (t) => {
    const home = await homeWithLayout(t, layout);
    let node = await startNode(t, home);
    const txHeights = await transfers(home, RECIPIENT, 6);
    const last = txHeights.at(-1)!;
    while ((await blockNumber(home)) < last + 2) await new Promise((r) => setTimeout(r, 100));
    // What the node served before any rollback: the recipient's balance after each block.
    const balances = new Map<number, unknown>();
    for (let h = txHeights[0]! - 1; h <= last + 1; h++) balances.set(h, await rpcResult(home.http, 'eth_getBalance', [RECIPIENT, `0x${h.toString(16)}`]));
    t.equal(await node.stop(), 0);

    const busyFree = stratad(['rollback', '--num-blocks', '3', '--home', home.home]);
    t.equal(busyFree.status, 0, busyFree.stderr);
    const first = rolledBackTo(busyFree.stdout);
    t.match(busyFree.stdout, `Rolled back SS to version ${first.height}\n`);
    t.match(busyFree.stdout, `Rolled back CMS to version ${first.height}\n`);
    const top = first.height + 3;
    t.match(busyFree.stdout, `The block store keeps blocks ${first.height + 1}..${top}; the next start re-executes them`);
    t.notMatch(busyFree.stdout, /WARNING|skipped/, 'nothing is skipped');

    // Repeated at once, further back than the state store was ahead of the first target.
    const again = stratad(['rollback', '--num-blocks', '2', '--home', home.home]);
    t.equal(again.status, 0, again.stderr);
    const second = rolledBackTo(again.stdout);
    t.equal(second.height, first.height - 2);
    t.ok(second.height < last, 'the second target is below blocks that changed the state');

    const dump = stratad(['debug', 'dump-db', '--home', home.home]);
    t.equal(dump.status, 0, dump.stderr);
    const dbs = parseDumpDb(dump.stdout);
    t.equal(dbs.length, layout.split ? 6 : 1, 'every SS DB is dumped (Cosmos, and the five EVM DBs when split)');
    for (const db of dbs) {
      t.equal(db.latest, second.height, `${db.dir} is at the rollback height`);
      t.equal(db.entries.filter((e) => e.version > second.height).length, 0, `${db.dir} holds no version above it`);
    }
    if (layout.split) t.ok(dbs.some((db) => db.dir.includes('evm_ss') && db.entries.some((e) => e.store === 'evm')), 'the EVM side has EVM state');

    node = await startNode(t, home);
    t.match(node.output(), /replayed stored block/, 'the stored blocks were re-executed');
    while ((await blockNumber(home)) < top + 2) await new Promise((r) => setTimeout(r, 100));
    t.equal(await stateRootOf(home, first.height + 1), first.hash, 'the first rollback printed the app hash the next header carries');
    t.equal(await stateRootOf(home, second.height + 1), second.hash, 'so did the second');
    for (const [h, balance] of balances) {
      t.equal(await rpcResult(home.http, 'eth_getBalance', [RECIPIENT, `0x${h.toString(16)}`]), balance, `balance at ${h} as before`);
    }
    t.equal(await node.stop(), 0);

    // And once more after the restart, back below the first transfer.
    const third = stratad(['rollback', '--home', home.home]);
    t.equal(third.status, 0, third.stderr);
    const deep = stratad(['rollback', '--num-blocks', String(rolledBackTo(third.stdout).height - txHeights[0]! + 1), '--home', home.home]);
    t.equal(deep.status, 0, deep.stderr);
    t.equal(rolledBackTo(deep.stdout).height, txHeights[0]! - 1);
    node = await startNode(t, home);
    while ((await blockNumber(home)) < top + 3) await new Promise((r) => setTimeout(r, 100));
    t.equal(await rpcResult(home.http, 'eth_getBalance', [RECIPIENT, `0x${last.toString(16)}`]), balances.get(last), 'history rebuilt by re-execution');
    t.equal(await node.stop(), 0);
  });
}

t.test('a rollback below height 1 is refused and changes nothing', async (t) => {
  const home = await homeWithLayout(t, LAYOUTS[0]!);
  const node = await startNode(t, home);
  while ((await blockNumber(home)) < 3) await new Promise((r) => setTimeout(r, 100));
  t.equal(await node.stop(), 0);
  const refused = stratad(['rollback', '--num-blocks', '100000', '--home', home.home]);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /cannot roll back below height 1/);
  const ok = stratad(['rollback', '--home', home.home]);
  t.equal(ok.status, 0, ok.stderr);
});
