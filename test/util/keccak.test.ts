/**
 * keccak256 (util/keccak.ts) reuses one sponge for every hash: known vectors, inputs that span
 * several blocks of the rate, views into larger buffers, and hashes in a row that must not
 * carry state from one to the next.
 */
import createKeccakHash from 'keccak';
import t from 'tap';

import { checksumAddress, keccak256, keccak256Memo } from '../../src/util/keccak.js';

const stream = (data: Uint8Array) => createKeccakHash('keccak256').update(Buffer.from(data)).digest('hex');

t.test('known vectors', async (t) => {
  t.equal(keccak256(new Uint8Array()).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'the empty input');
  t.equal(keccak256(Buffer.from('abc')).toString('hex'), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45', '"abc"');
});

t.test('agrees with the hashing stream on every length around the rate', async (t) => {
  // The rate is 136 bytes: lengths around one and two blocks cross the padding edge cases.
  const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 0xff));
  const wrong = [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 300].filter((n) => keccak256(bytes.subarray(0, n)).toString('hex') !== stream(bytes.subarray(0, n)));
  t.same(wrong, [], 'no length disagrees');
});

t.test('hashes a view into a larger buffer, and one hash does not leak into the next', async (t) => {
  const backing = new Uint8Array(64).map((_, i) => i);
  const view = new Uint8Array(backing.buffer, 10, 20);
  t.equal(keccak256(view).toString('hex'), stream(view), 'a Uint8Array view hashes only its bytes');
  const first = keccak256(Buffer.from('abc')).toString('hex');
  keccak256(Buffer.alloc(500, 7));
  t.equal(keccak256(Buffer.from('abc')).toString('hex'), first, 'the same hash after another input');
});

t.test('EIP-55 checksums', async (t) => {
  // The examples of EIP-55.
  for (const address of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
    t.equal(checksumAddress(Buffer.from(address.slice(2), 'hex')), address);
  }
});

t.test('a remembered hash is hashed once per array and equals keccak256', async (t) => {
  const raw = Uint8Array.from([2, 0xf8, 0x6c, 1, 2, 3]);
  const first = keccak256Memo(raw);
  t.equal(first.toString('hex'), stream(raw), 'the keccak256 of the bytes');
  t.equal(keccak256Memo(raw), first, 'the same array gets the remembered hash back');
  const copy = Uint8Array.from(raw);
  t.not(keccak256Memo(copy), first, 'another array is hashed for itself');
  t.equal(keccak256Memo(copy).toString('hex'), first.toString('hex'), 'to the same value');
});
