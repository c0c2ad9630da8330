/** keccak256Many: the addon's batch keccak256 against the one-input hash, and its refusals. */
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { InvalidArgumentError, keccak256Many } from '../../src/store/index.js';
import { keccak256 } from '../../src/util/keccak.js';

t.test('each packed input hashes as it would alone', async (t) => {
  // Lengths around the 136-byte rate, an empty input, and a long one.
  const inputs = [0, 1, 31, 135, 136, 137, 271, 272, 273, 5_000].map((length) => randomBytes(length));
  const hashes = keccak256Many(Buffer.concat(inputs), Uint32Array.from(inputs.map((input) => input.length)));
  t.equal(hashes.length, inputs.length * 32, '32 bytes per input');
  inputs.forEach((input, i) => {
    t.equal(hashes.subarray(i * 32, i * 32 + 32).toString('hex'), keccak256(input).toString('hex'), `input ${i} (${input.length} bytes)`);
  });
  t.equal(keccak256Many(new Uint8Array(), new Uint32Array()).length, 0, 'no inputs, no hashes');
});

t.test('lengths that do not tile the packed bytes are refused', async (t) => {
  t.throws(() => keccak256Many(new Uint8Array(10), Uint32Array.of(4, 4)), InvalidArgumentError, 'lengths short of the bytes');
  t.throws(() => keccak256Many(new Uint8Array(10), Uint32Array.of(8, 4)), /add up to 12 bytes but 10 are packed/, 'lengths past the bytes, named');
  t.throws(() => keccak256Many(new Uint8Array(4), Int32Array.of(4) as unknown as Uint32Array), /Uint32Array of input lengths/, 'lengths of another array type');
});
