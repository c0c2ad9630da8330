/** The proposal log: a synced round trip, its absence, its removal, and a damaged file named with the way out. */
import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProposalFileError, loadProposal, proposalPath, removeProposal, writeProposal, type Proposal } from '../../src/chain/proposal.js';

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-proposal-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const proposal: Proposal = {
  height: 42,
  timeMs: 1_764_000_000_123,
  proposer: Buffer.alloc(20, 0xab),
  baseFee: 1_000_000_000n,
  gasLimit: 30_000_000n,
  lastBlockHash: Buffer.alloc(32, 1),
  appHash: Buffer.alloc(32, 2),
  txs: [Buffer.from('02f86b', 'hex'), Buffer.alloc(0), Buffer.alloc(300, 7)],
};

t.test('a written proposal reads back exactly, and is gone once removed', async (t) => {
  const path = proposalPath(dataDir(t));
  t.equal(loadProposal(path), undefined, 'no log, no proposal');
  await writeProposal(path, proposal);
  t.notOk(existsSync(`${path}.tmp`), 'no temporary file is left behind');
  t.same(loadProposal(path), proposal);
  await writeProposal(path, { ...proposal, height: 43, txs: [] });
  t.same(loadProposal(path), { ...proposal, height: 43, txs: [] }, 'a newer proposal replaces the old one');
  removeProposal(path);
  t.equal(loadProposal(path), undefined);
  t.doesNotThrow(() => removeProposal(path), 'removing twice is harmless');
});

t.test('transactions that are views into a larger buffer are written as their own bytes', async (t) => {
  // Decoded blocks hold their transactions as views of the block's bytes (chain/block.ts).
  const path = proposalPath(dataDir(t));
  const block = Buffer.from(Array.from({ length: 64 }, (_, i) => i));
  const txs = [block.subarray(3, 9), new Uint8Array(block.buffer, block.byteOffset + 40, 5)];
  await writeProposal(path, { ...proposal, txs });
  t.same(
    loadProposal(path)?.txs.map((tx) => Buffer.from(tx).toString('hex')),
    ['030405060708', '28292a2b2c'],
  );
});

t.test('a damaged log is refused with what to do', async (t) => {
  const path = proposalPath(dataDir(t));
  for (const text of ['{"height": "4', '[]', '{"height": "x"}', JSON.stringify({ height: '1', time_ms: '1', proposer: 'ZZ' })]) {
    writeFileSync(path, text);
    t.throws(() => loadProposal(path), { constructor: ProposalFileError, message: /is damaged .*move it aside/ }, text);
  }
});
