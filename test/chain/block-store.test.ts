/** The block store: atomic saves, lookups, receipts, log filtering, commits and reopening. */
import t from 'tap';
import { rmSync } from 'node:fs';
import { blockHash, txHash } from '../../src/chain/block.js';
import { BlockStore, BlockStoreError, type Receipt } from '../../src/chain/block-store.js';
import { PlainKv } from '../../src/store/index.js';
import { encode as rlpEncode } from '@ethereumjs/rlp';
import { join } from 'node:path';
import { PROPOSER, address, fakeTx, receipt, signedBlock, topic } from './fixtures.js';

const ZERO = Buffer.alloc(32);

/** Saves `count` blocks; block h has h % 3 txs; tx i of block h logs from address(h % 4). */
async function fillChain(store: BlockStore, count: number): Promise<Buffer[]> {
  const hashes: Buffer[] = [];
  let last: Buffer = ZERO;
  for (let h = 1; h <= count; h++) {
    const txs = Array.from({ length: h % 3 }, fakeTx);
    const receipts: Receipt[] = txs.map((_, i) =>
      receipt(h % 5 === 0 ? [] : [{ address: address(h % 4), topics: [topic(100 + i), topic(h)], data: Buffer.from([h, i]) }]),
    );
    const block = signedBlock(h, last, txs);
    last = await store.saveBlock(block, receipts, [{ validatorAddress: PROPOSER, timestampMs: block.header.timeMs, signature: block.signature }]);
    hashes.push(last);
  }
  return hashes;
}

t.test('saves and looks up blocks by height and hash', async (t) => {
  const store = await BlockStore.open(t.testdir());
  t.equal(store.latestHeight(), undefined);
  const hashes = await fillChain(store, 6);
  t.equal(store.latestHeight(), 6);
  t.equal(store.earliestHeight(), 1);
  const b4 = store.blockByHeight(4)!;
  t.same(b4.hash, hashes[3]);
  t.same(b4.hash, blockHash(b4.header));
  t.equal(store.blockByHash(hashes[3]!)!.header.height, 4);
  t.equal(store.heightOfHash(hashes[1]!), 2);
  t.equal(store.blockByHeight(7), undefined);
  t.equal(store.blockByHash(Buffer.alloc(32, 1)), undefined);
  await store.close();
});

t.test('indexes txs and receipts with their logs', async (t) => {
  const store = await BlockStore.open(t.testdir());
  await fillChain(store, 4);
  const block = store.blockByHeight(2)!;
  const hash = txHash(block.txs[1]!);
  const location = store.txByHash(hash)!;
  t.equal(location.height, 2);
  t.equal(location.index, 1);
  t.same(Buffer.from(location.rawTx), Buffer.from(block.txs[1]!));
  const r = store.receipt(hash)!;
  t.equal(r.status, 1);
  t.equal(r.gasUsed, 21000n);
  t.equal(r.blockHeight, 2);
  t.equal(r.txIndex, 1);
  t.same(r.blockHash, block.hash);
  t.equal(r.logs.length, 1);
  t.same(r.logs[0]!.topics[0], topic(101));
  t.equal(r.logs[0]!.logIndex, 1, 'log index counts from the start of the block');
  t.equal(store.txByHash(Buffer.alloc(32, 5)), undefined);
  t.equal(store.receipt(Buffer.alloc(32, 5)), undefined);
  const inBlock = store.txInBlock(hash)!;
  t.same(inBlock.block.hash, block.hash, 'txInBlock gives the including block');
  t.equal(inBlock.index, 1);
  t.equal(store.txInBlock(Buffer.alloc(32, 5)), undefined);
  await store.close();
});

t.test('a tx index pointing past its block is reported as damage, not as an unknown tx', async (t) => {
  const dir = t.testdir();
  let store = await BlockStore.open(dir);
  await fillChain(store, 2);
  const hash = txHash(store.blockByHeight(2)!.txs[0]!);
  await store.close();
  const kv = await PlainKv.open(join(dir, 'blockstore'));
  const position = Buffer.alloc(12);
  position.writeBigUInt64BE(2n, 0);
  position.writeUInt32BE(7, 8); // block 2 holds 2 txs
  await kv.write([{ key: Buffer.concat([Buffer.from([0x03]), hash]), value: position }], { sync: true });
  await kv.close();
  store = await BlockStore.open(dir);
  t.throws(() => store.txInBlock(hash), { name: 'BlockStoreError', message: /position 7, which is missing; the block store is damaged/ });
  t.throws(() => store.txByHash(hash), BlockStoreError);
  await store.close();
});

t.test('filters logs by range, address and topics', async (t) => {
  const store = await BlockStore.open(t.testdir());
  await fillChain(store, 30);
  const all = store.logs({ fromBlock: 1, toBlock: 30 });
  // Blocks with txs: h % 3 != 0; minus h % 5 == 0 (no logs). Count logs the same way.
  let expected = 0;
  for (let h = 1; h <= 30; h++) if (h % 5 !== 0) expected += h % 3;
  t.equal(all.length, expected);
  t.ok(all.every((log, i) => i === 0 || log.blockHeight >= all[i - 1]!.blockHeight), 'chain order');

  const byAddress = store.logs({ fromBlock: 1, toBlock: 30, addresses: [address(1)] });
  t.ok(byAddress.length > 0);
  t.ok(byAddress.every((l) => l.blockHeight % 4 === 1));
  t.equal(byAddress.length, all.filter((l) => l.blockHeight % 4 === 1).length);

  const byTopic = store.logs({ fromBlock: 1, toBlock: 30, topics: [[topic(101)], [topic(7), topic(8)]] });
  t.same(byTopic.map((l) => l.blockHeight), [8], 'block 7 has one tx (index 0); block 8 has two');

  const wildcard = store.logs({ fromBlock: 10, toBlock: 12, topics: [null, [topic(11)]] });
  t.same(wildcard.map((l) => l.blockHeight), [11, 11]);

  t.same(store.logs({ fromBlock: 5, toBlock: 5 }), [], 'block 5 has no logs');
  t.same(store.logs({ fromBlock: 9, toBlock: 2 }), []);
  t.same(store.logs({ fromBlock: 1, toBlock: 30, topics: [null, null, [topic(1)]] }), [], 'position past the topics');
  await store.close();
});

t.test('log scan crosses bloom batch boundaries', async (t) => {
  const store = await BlockStore.open(t.testdir());
  let last: Buffer = ZERO;
  for (let h = 1; h <= 1100; h++) {
    const txs = [fakeTx()];
    last = await store.saveBlock(signedBlock(h, last, txs), [receipt([{ address: address(h === 1050 ? 9 : 1), topics: [], data: Buffer.alloc(0) }])], []);
  }
  t.equal(store.logs({ fromBlock: 1, toBlock: 1100 }).length, 1100);
  t.same(store.logs({ fromBlock: 1, toBlock: 1100, addresses: [address(9)] }).map((l) => l.blockHeight), [1050]);
  await store.close();
});

t.test('log records written in the older form (logs only, no block hash or tx hashes) are still read', async (t) => {
  const dir = t.testdir();
  let store = await BlockStore.open(dir);
  await fillChain(store, 12);
  const current = store.logs({ fromBlock: 1, toBlock: 12 });
  const receipts = [7, 8].flatMap((h) => store.receiptsOfBlock(h)!);
  await store.close();
  // Rewrite the records of blocks 7 and 8 as [[txIndex, address, topics, data], …].
  const kv = await PlainKv.open(join(dir, 'blockstore'));
  const old = (h: number) =>
    rlpEncode(current.filter((l) => l.blockHeight === h).map((l) => [l.txIndex === 0 ? new Uint8Array() : Uint8Array.of(l.txIndex), l.address, [...l.topics], l.data]));
  const recordKey = (h: number) => Buffer.concat([Buffer.from([0x05]), Buffer.from(h.toString(16).padStart(16, '0'), 'hex')]);
  t.ok(kv.get(recordKey(7)), 'block 7 has a log record');
  await kv.write([7, 8].map((h) => ({ key: recordKey(h), value: old(h) })), { sync: true });
  await kv.close();
  store = await BlockStore.open(dir);
  t.same(store.logs({ fromBlock: 1, toBlock: 12 }), current, 'a range over both forms gives the same logs');
  t.same([7, 8].flatMap((h) => store.receiptsOfBlock(h)!), receipts, 'and receipts keep their logs');
  await store.close();
});

t.test('refuses blocks that do not extend the chain', async (t) => {
  const store = await BlockStore.open(t.testdir());
  const hashes = await fillChain(store, 2);
  await t.rejects(store.saveBlock(signedBlock(4, hashes[1]!, []), [], []), { name: 'BlockStoreError', message: /save block 3 next/ });
  await t.rejects(store.saveBlock(signedBlock(3, ZERO, []), [], []), /last block hash does not match/);
  await t.rejects(store.saveBlock(signedBlock(3, hashes[1]!, [fakeTx()]), [], []), BlockStoreError);
  const bad = signedBlock(3, hashes[1]!, [fakeTx()]);
  await t.rejects(store.saveBlock({ ...bad, txs: [fakeTx()] }, [receipt()], []), /tx root does not match/);
  t.equal(store.latestHeight(), 2, 'nothing was saved');
  await store.close();
});

t.test('a failed save leaves no trace of the block', async (t) => {
  const dir = t.testdir();
  const store = await BlockStore.open(dir);
  const hashes = await fillChain(store, 1);
  // Close the underlying store under the block store so the write itself fails.
  await store.close();
  const txs = [fakeTx()];
  await t.rejects(store.saveBlock(signedBlock(2, hashes[0]!, txs), [receipt()], []));
  const reopened = await BlockStore.open(dir);
  t.equal(reopened.latestHeight(), 1);
  t.equal(reopened.txByHash(txHash(txs[0]!)), undefined);
  t.equal(reopened.receipt(txHash(txs[0]!)), undefined);
  await reopened.close();
  // A raw scan finds no key of block 2's tx (index, receipt) either.
  const kv = await PlainKv.open(join(dir, 'blockstore'));
  t.equal(kv.range().filter((e) => e.key.includes(txHash(txs[0]!))).length, 0);
  await kv.close();
});

t.test('commit signatures are stored per height', async (t) => {
  const store = await BlockStore.open(t.testdir());
  const hashes = await fillChain(store, 3);
  const commit = store.commit(2)!;
  t.equal(commit.height, 2);
  t.same(commit.blockHash, hashes[1]);
  t.equal(commit.signatures.length, 1);
  t.same(Buffer.from(commit.signatures[0]!.signature), Buffer.from(store.blockByHeight(2)!.signature));
  t.same(Buffer.from(commit.signatures[0]!.validatorAddress), PROPOSER);
  t.equal(store.commit(9), undefined);
  await store.close();
});

t.test('everything survives a reopen and the chain continues', async (t) => {
  const dir = t.testdir();
  const store = await BlockStore.open(dir);
  const hashes = await fillChain(store, 5);
  await store.close();
  const reopened = await BlockStore.open(dir);
  t.equal(reopened.latestHeight(), 5);
  t.equal(reopened.earliestHeight(), 1);
  t.same(reopened.blockByHeight(5)!.hash, hashes[4]);
  await reopened.saveBlock(signedBlock(6, hashes[4]!, []), [], []);
  t.equal(reopened.latestHeight(), 6);
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('hashAt answers the hash of a stored height, and forgets truncated heights', async (t) => {
  const store = await BlockStore.open(t.testdir());
  const hashes = await fillChain(store, 6);
  t.same(store.hashAt(5), hashes[4]);
  t.same(store.hashAt(5), hashes[4], 'asked again (remembered)');
  t.equal(store.hashAt(9), undefined);
  await store.truncateAbove(4);
  t.equal(store.hashAt(5), undefined, 'a truncated height has no hash any more');
  const replaced = signedBlock(5, hashes[3]!, [fakeTx()]);
  const hash = await store.saveBlock(replaced, [receipt([])], [{ validatorAddress: PROPOSER, timestampMs: replaced.header.timeMs, signature: replaced.signature }]);
  t.same(store.hashAt(5), hash, 'the block saved in its place');
  await store.close();
});

t.test('logs a query remembers are forgotten with their blocks on a rollback', async (t) => {
  const store = await BlockStore.open(t.testdir());
  const hashes = await fillChain(store, 6);
  t.equal(store.logCacheBytes(), 0, 'nothing remembered before a query');
  const before = store.logs({ fromBlock: 4, toBlock: 4 });
  t.equal(before.length, 1, 'block 4 has one log');
  t.ok(store.logCacheBytes() > 0, `the query's logs are counted: ${store.logCacheBytes()} bytes`);
  t.same(store.logs({ fromBlock: 4, toBlock: 4 }), before, 'asked again (remembered)');
  await store.truncateAbove(3);
  t.equal(store.logCacheBytes(), 0, 'a rollback forgets them all');
  t.same(store.logs({ fromBlock: 1, toBlock: 6 }).map((l) => l.blockHeight), [1, 2, 2], 'the truncated blocks have no logs');
  const replaced = signedBlock(4, hashes[2]!, [fakeTx(), fakeTx()]);
  const logged = { address: address(3), topics: [topic(44)], data: Buffer.from([4]) };
  const hash = await store.saveBlock(replaced, [receipt([]), receipt([logged])], [{ validatorAddress: PROPOSER, timestampMs: replaced.header.timeMs, signature: replaced.signature }]);
  const after = store.logs({ fromBlock: 4, toBlock: 4 });
  t.equal(after.length, 1, 'the block saved in its place has its own log');
  t.same(after[0]!.topics, [topic(44)], 'with its topic');
  t.same(after[0]!.blockHash, hash, 'its hash');
  t.equal(after[0]!.txIndex, 1, 'and its transaction');
  t.same(after[0]!.txHash, txHash(replaced.txs[1]!));
  await store.close();
});

t.test('the logs a query remembers are bounded in bytes, not only in count', async (t) => {
  const store = await BlockStore.open(t.testdir());
  // 40 blocks with one 1 MiB log each: 40 MiB of raw data, past the cache's budget.
  let last: Buffer = ZERO;
  for (let h = 1; h <= 40; h++) {
    const block = signedBlock(h, last, [fakeTx()]);
    const big = { address: address(1), topics: [topic(h)], data: Buffer.alloc(1024 * 1024, h) };
    last = await store.saveBlock(block, [receipt([big])], [{ validatorAddress: PROPOSER, timestampMs: block.header.timeMs, signature: block.signature }]);
  }
  const first = store.logs({ fromBlock: 1, toBlock: 40 });
  t.equal(first.length, 40);
  const again = store.logs({ fromBlock: 1, toBlock: 40 });
  t.same(again, first, 'the same logs either way');
  const remembered = again.filter((log, i) => log === first[i]).map((log) => log.blockHeight);
  t.ok(remembered.length > 0 && remembered.length < 40, `only some blocks' logs are remembered (${remembered.length} of 40)`);
  t.same(remembered, Array.from({ length: remembered.length }, (_, i) => 41 - remembered.length + i), 'the most recently read ones');
  const bytes = store.logCacheBytes();
  t.ok(bytes > remembered.length * 1024 * 1024 && bytes <= 32 * 1024 * 1024, `their estimate counts their data and stays within 32 MiB: ${(bytes / 2 ** 20).toFixed(1)} MiB`);
  await store.close();
});

t.test('decoded blocks are remembered frozen, within their budget, and forgotten on a rollback', async (t) => {
  const store = await BlockStore.open(t.testdir());
  await fillChain(store, 5);
  t.equal(store.decodedBlockBytes(), 0, 'nothing remembered before a read');
  const block = store.blockByHeight(5)!;
  t.equal(store.blockByHeight(5), block, 'a second read gives the remembered block');
  t.equal(store.txInBlock(txHash(block.txs[1]!))!.block, block, 'so does a lookup of one of its txs');
  t.equal(store.receipt(txHash(block.txs[1]!))!.blockHash, block.hash, 'and a receipt reads it from there');
  t.ok(Object.isFrozen(block) && Object.isFrozen(block.header) && Object.isFrozen(block.txs), 'a shared block cannot be changed by one of its readers');
  t.ok(store.decodedBlockBytes() > 0 && store.decodedBlockBytes() <= store.decodedBlockCapacity(), `counted: ${store.decodedBlockBytes()} bytes`);
  t.equal(store.decodedBlockCapacity(), 2 * 1024 * 1024, 'the owner remembers up to 2 MiB');
  const borrowed = BlockStore.attach(store.share());
  t.equal(borrowed.decodedBlockCapacity(), 1024 * 1024, 'a store another thread borrowed, up to 1 MiB');
  t.same(borrowed.blockByHeight(5)!.hash, block.hash, 'and reads the same block');
  await store.truncateAbove(4);
  t.equal(store.decodedBlockBytes(), 0, 'a rollback forgets them all');
  t.equal(store.blockByHeight(5), undefined, 'the truncated block is gone');
  const replaced = signedBlock(5, store.hashAt(4)!, [fakeTx()]);
  await store.saveBlock(replaced, [receipt([])], [{ validatorAddress: PROPOSER, timestampMs: replaced.header.timeMs, signature: replaced.signature }]);
  t.same(store.blockByHeight(5)!.hash, blockHash(replaced.header), 'the block saved in its place is read, not the one remembered before');
  await store.close();
});

t.test('a decoded block larger than the budget is read every time, not remembered', async (t) => {
  const store = await BlockStore.open(t.testdir());
  const txs = Array.from({ length: 3 }, () => Buffer.alloc(1024 * 1024, 7)); // 3 MiB, past the 2 MiB budget
  const block = signedBlock(1, ZERO, txs);
  await store.saveBlock(block, txs.map(() => receipt([])), [{ validatorAddress: PROPOSER, timestampMs: block.header.timeMs, signature: block.signature }]);
  const first = store.blockByHeight(1)!;
  t.equal(first.txs.length, 3);
  t.not(store.blockByHeight(1), first, 'decoded again');
  t.equal(store.decodedBlockBytes(), 0);
  await store.close();
});

t.test('a block being saved is not found by its hash or its txs before it is the latest', async (t) => {
  const store = await BlockStore.open(t.testdir());
  let last: Uint8Array = ZERO;
  let early = 0;
  let polls = 0;
  for (let h = 1; h <= 60; h++) {
    const tx = fakeTx();
    const block = signedBlock(h, last, [tx]);
    let saved = false;
    const saving = store.saveBlock(block, [receipt()], []).then((hash) => {
      saved = true;
      return hash;
    });
    // Poll while the synced write is in flight: what a lookup by hash finds must never be
    // above the latest height (the write lands before saveBlock resolves).
    while (!saved) {
      polls++;
      const found = [store.receipt(txHash(tx))?.blockHeight, store.txByHash(txHash(tx))?.height, store.heightOfHash(blockHash(block.header))];
      if (found.some((height) => height !== undefined && height > (store.latestHeight() ?? 0))) early++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    last = await saving;
    t.equal(store.receipt(txHash(tx))?.blockHeight, h, `block ${h}'s receipt is found once it is saved`);
  }
  t.equal(early, 0, `no receipt, tx or block hash was found above the latest height (${polls} lookups during 60 saves)`);
  await store.close();
});

t.test('a written block stays unpublished until publishBlock, and publishing keeps the chain order', async (t) => {
  const store = await BlockStore.open(t.testdir());
  await fillChain(store, 2);
  const tx = fakeTx();
  const block = signedBlock(3, store.hashAt(2)!, [tx]);
  const hash = await store.writeBlock(block, [receipt()], []);
  t.same(hash, blockHash(block.header), 'writeBlock answers the block hash');
  t.equal(store.latestHeight(), 2, 'the latest height does not move on the write');
  t.equal(store.heightOfHash(hash), undefined, 'the block is not found by its hash');
  t.equal(store.txByHash(txHash(tx)), undefined, 'nor its tx');
  t.equal(store.receipt(txHash(tx)), undefined, 'nor its receipt');
  t.throws(() => store.publishBlock(4, hash), BlockStoreError, 'a height that does not follow the latest is refused');
  store.publishBlock(3, hash);
  t.equal(store.latestHeight(), 3, 'published: the latest height is the block');
  t.equal(store.heightOfHash(hash), 3);
  t.equal(store.receipt(txHash(tx))?.blockHeight, 3);
  t.same(store.hashAt(3), hash, 'hashAt knows the published block');
  const next = signedBlock(4, hash, []);
  t.same(await store.saveBlock(next, [], []), blockHash(next.header), 'the chain goes on from the published block');
  await store.close();
});
