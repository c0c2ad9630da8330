/** Block verification, the protocol messages' shape checks, range replies and tx batches, bounded as the peer layer requires. */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_HASH, blockHash, decodeBlock, encodeBlock, signBlockHash } from '../../src/chain/block.js';
import { BlockStore } from '../../src/chain/block-store.js';
import { encodeMessage } from '../../src/p2p/index.js';
import {
  MAX_BLOCKS_PER_REQUEST,
  SyncMessageError,
  blocksReply,
  parseAnnounce,
  parseBlocksReply,
  parseBlocksRequest,
  parseStatus,
  parseTxs,
  txBatches,
  verifyBlock,
  type ValidatorSet,
} from '../../src/sync/index.js';
import { PROPOSER, PUBKEY, fakeTx, receipt, signedBlock } from '../chain/fixtures.js';

const validators: ValidatorSet = new Map([[PROPOSER.toString('hex').toUpperCase(), PUBKEY]]);
const tip = { height: 0, hash: ZERO_HASH, chainId: 713715n };
const stored = (block: ReturnType<typeof signedBlock>) => decodeBlock(encodeBlock(block));

t.test('verifyBlock accepts a signed child of the tip and names what is wrong otherwise', async (t) => {
  const good = stored(signedBlock(1, ZERO_HASH, [fakeTx(), fakeTx()]));
  t.doesNotThrow(() => verifyBlock(good, tip, validators));
  t.throws(() => verifyBlock(good, { ...tip, height: 1 }, validators), { name: 'BlockVerificationError', message: /does not follow 1/ });
  t.throws(() => verifyBlock(good, { ...tip, hash: Buffer.alloc(32, 1) }, validators), { message: /parent hash/ });
  t.throws(() => verifyBlock(good, { ...tip, chainId: 1n }, validators), { message: /EVM chain id/ });
  t.throws(() => verifyBlock(good, tip, new Map()), { message: /not a genesis validator/ });
  const forged = { ...good, signature: signBlockHash(good.hash, Buffer.alloc(32, 9)) };
  t.throws(() => verifyBlock(forged, tip, validators), { message: /signature/ });
  const swapped = { ...good, txs: [fakeTx()] };
  t.throws(() => verifyBlock(swapped, tip, validators), { message: /tx root/ });
  // A header changed after signing no longer hashes to what was signed.
  const header = { ...good.header, timeMs: good.header.timeMs + 1 };
  t.throws(() => verifyBlock({ ...good, header, hash: blockHash(header) }, tip, validators), { message: /signature/ });
});

t.test('message shape checks refuse what the protocols do not define', async (t) => {
  t.same(parseStatus({ chainId: 'c', height: 5 }), { chainId: 'c', height: 5 });
  t.same(parseAnnounce({ height: 7 }), { height: 7 });
  t.same(parseBlocksRequest({ from: 1, to: MAX_BLOCKS_PER_REQUEST }), { from: 1, to: MAX_BLOCKS_PER_REQUEST });
  t.same(parseTxs({ txs: [Buffer.from('ab')] }).txs.length, 1);
  for (const bad of [null, 5, 'x', [1], Buffer.from('x'), { chainId: 1, height: 1 }, { chainId: 'c', height: -1 }, { chainId: 'c', height: 1.5 }, { chainId: 'c', height: 2 ** 60 }]) {
    t.throws(() => parseStatus(bad), SyncMessageError, `status ${JSON.stringify(bad)}`);
  }
  t.throws(() => parseBlocksRequest({ from: 0, to: 3 }), SyncMessageError);
  t.throws(() => parseBlocksRequest({ from: 5, to: 4 }), SyncMessageError);
  t.throws(() => parseBlocksRequest({ from: 1, to: MAX_BLOCKS_PER_REQUEST + 1 }), { message: /1 to 64 blocks/ }, 'a range request is bounded');
  t.throws(() => parseBlocksReply({ blocks: ['not bytes'] }), SyncMessageError);
  t.throws(() => parseTxs({ txs: 'x' }), SyncMessageError);
});

t.test('a range reply holds the blocks that fit one message, and says when not even one does', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-sync-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await BlockStore.open(dir);
  t.teardown(() => store.close());
  let parent: Uint8Array = ZERO_HASH;
  for (let h = 1; h <= 10; h++) {
    const block = signedBlock(h, parent, Array.from({ length: 10 }, fakeTx));
    await store.saveBlock(block, block.txs.map(() => receipt()), [{ validatorAddress: PROPOSER, timestampMs: block.header.timeMs, signature: block.signature }]);
    parent = blockHash(block.header);
  }
  const all = blocksReply(store, 1, 10, 1_000_000);
  t.equal(all.reply.blocks.length, 10);
  t.equal(decodeBlock(all.reply.blocks[3]!).header.height, 4);
  const limit = 5_000;
  const some = blocksReply(store, 3, 10, limit);
  t.ok(some.reply.blocks.length > 0 && some.reply.blocks.length < 8, `${some.reply.blocks.length} blocks fit`);
  t.ok(encodeMessage('/strata/blocks/1', some.reply, limit).length <= limit, 'the reply fits the limit');
  t.equal(decodeBlock(some.reply.blocks[0]!).header.height, 3, 'from the requested start');
  const none = blocksReply(store, 1, 10, 500);
  t.same(none, { reply: { blocks: [] }, tooLarge: true });
  t.same(blocksReply(store, 11, 12, limit), { reply: { blocks: [] }, tooLarge: false }, 'blocks not stored yet are not an error');
});

t.test('tx batches stay under the message limit', async (t) => {
  const txs = Array.from({ length: 500 }, () => Buffer.alloc(110, 1));
  const limit = 4096;
  const batches = txBatches(txs, limit);
  t.equal(batches.flatMap((b) => b.txs).length, 500, 'every tx is sent once');
  for (const batch of batches) t.ok(encodeMessage('/strata/txs/1', batch, limit).length <= limit);
  t.same(txBatches([Buffer.alloc(limit)], limit), [], 'a tx larger than a message is left out');
});
