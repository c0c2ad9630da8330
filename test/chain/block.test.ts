/** Block encoding, hashing, tx root, signatures and the logs bloom. */
import t from 'tap';
import { encode as rlpEncode } from '@ethereumjs/rlp';
import {
  BlockFormatError,
  addToBloom,
  blockHash,
  bloomMayContain,
  bloomMayMatchFilter,
  decodeBlock,
  decodeHeader,
  encodeBlock,
  encodeHeader,
  logsBloom,
  mergeBlooms,
  signBlockHash,
  txRoot,
  verifyBlockSignature,
} from '../../src/chain/block.js';
import { keccak256 } from '../../src/chain/hash.js';
import { PUBKEY, SEED, address, fakeTx, header, signedBlock, topic } from './fixtures.js';

t.test('header round-trips through RLP and the hash is keccak256 of the RLP', async (t) => {
  const h = header(5, Buffer.alloc(32, 9), [fakeTx()]);
  t.same(decodeHeader(encodeHeader(h)), h);
  t.same(blockHash(h), keccak256(encodeHeader(h)));
});

t.test('the header RLP lists the contract fields in order', async (t) => {
  const h = header(1, Buffer.alloc(32), []);
  const int = (v: bigint): Buffer => (v === 0n ? Buffer.alloc(0) : Buffer.from(v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, '0'), 'hex'));
  const expected = rlpEncode([
    int(h.chainId), int(BigInt(h.height)), int(BigInt(h.timeMs)), h.proposer, h.lastBlockHash, h.appHash,
    h.txRoot, h.receiptsRoot, int(h.gasUsed), int(h.gasLimit), int(h.baseFee), h.logsBloom,
  ]);
  t.same(Buffer.from(encodeHeader(h)), Buffer.from(expected));
});

t.test('any header field change changes the hash', async (t) => {
  const h = header(3, Buffer.alloc(32), []);
  const base = blockHash(h);
  t.not(blockHash({ ...h, height: 4 }).toString('hex'), base.toString('hex'));
  t.not(blockHash({ ...h, appHash: Buffer.alloc(32, 1) }).toString('hex'), base.toString('hex'));
  t.not(blockHash({ ...h, baseFee: 0n }).toString('hex'), base.toString('hex'));
});

t.test('tx root is keccak256 of the concatenated tx hashes', async (t) => {
  const txs = [fakeTx(), fakeTx()];
  t.same(txRoot(txs), keccak256(Buffer.concat(txs.map((tx) => keccak256(tx)))));
  t.same(txRoot([]), keccak256(Buffer.alloc(0)));
  t.equal(txRoot([]).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
});

t.test('a block round-trips with its txs and signature', async (t) => {
  const block = signedBlock(7, Buffer.alloc(32, 3), [fakeTx(), fakeTx()]);
  const decoded = decodeBlock(encodeBlock(block));
  t.same(decoded.header, block.header);
  t.same(decoded.txs.map((x) => Buffer.from(x)), block.txs);
  t.same(Buffer.from(decoded.signature), Buffer.from(block.signature));
  t.same(decoded.hash, blockHash(block.header));
});

t.test('ed25519 signature verifies and rejects tampering', async (t) => {
  const hash = blockHash(header(2, Buffer.alloc(32), []));
  const sig = signBlockHash(hash, SEED);
  t.equal(sig.length, 64);
  t.ok(verifyBlockSignature(hash, sig, PUBKEY));
  const other = Buffer.from(hash);
  other[0] = other[0]! ^ 1;
  t.notOk(verifyBlockSignature(other, sig, PUBKEY));
  const badSig = Buffer.from(sig);
  badSig[10] = badSig[10]! ^ 1;
  t.notOk(verifyBlockSignature(hash, badSig, PUBKEY));
});

t.test('malformed input is refused with a message naming the field', async (t) => {
  const h = header(1, Buffer.alloc(32), []);
  t.throws(() => encodeHeader({ ...h, proposer: Buffer.alloc(19) }), { name: 'BlockFormatError', message: /proposer must be 20 bytes/ });
  t.throws(() => decodeBlock(rlpEncode([Buffer.alloc(1)])), BlockFormatError);
  t.throws(() => signBlockHash(Buffer.alloc(31), SEED), /block hash must be 32 bytes/);
});

t.test('bloom holds its items and matches filters', async (t) => {
  const log = { address: address(1), topics: [topic(10), topic(11)], data: Buffer.alloc(0) };
  const bloom = logsBloom([log]);
  t.ok(bloomMayContain(bloom, address(1)));
  t.ok(bloomMayContain(bloom, topic(11)));
  t.notOk(bloomMayContain(bloom, address(2)));
  t.ok(bloomMayMatchFilter(bloom, [address(2), address(1)], [[topic(10)], null]));
  t.notOk(bloomMayMatchFilter(bloom, [address(1)], [[topic(99)]]));
  t.ok(bloomMayMatchFilter(bloom, [], []));
  const other = Buffer.alloc(256);
  addToBloom(other, address(3));
  const merged = mergeBlooms([bloom, other]);
  t.ok(bloomMayContain(merged, address(3)) && bloomMayContain(merged, address(1)));
});

t.test('bloom bit positions follow Ethereum (known vector)', async (t) => {
  // The zero address's bloom sets exactly the three bits derived from keccak256(20 zero bytes).
  const bloom = Buffer.alloc(256);
  addToBloom(bloom, Buffer.alloc(20));
  const h = keccak256(Buffer.alloc(20));
  const expected = Buffer.alloc(256);
  for (const i of [0, 2, 4]) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    expected[256 - 1 - Math.floor(bit / 8)]! |= 1 << bit % 8;
  }
  t.same(bloom, expected);
  t.ok([1, 2, 3].includes(bloom.reduce((n, byte) => n + byte.toString(2).replace(/0/g, '').length, 0)));
});
