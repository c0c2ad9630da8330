/**
 * `npm run bench:commit [-- --quick] [--json]`: state-commitment throughput.
 *
 * Strata commits blocks of 60,000 transfers over 1,000,000 funded accounts through
 * CommitStore (memiavl `bank` + FlatKV nonces → app hash); the figure is the wall time from
 * handing the block's changesets over to the durable commit's return (median of the timed
 * blocks). The same transfers are then committed through @ethereumjs/mpt in the same run. A
 * snapshot of the whole state is written afterwards and its write rate reported.
 *
 * The MPT peer starts from a smaller trie (its setup costs ~200 µs per account); a smaller
 * trie is shallower and so faster per update, which favours the peer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CommitStore } from '../../src/store/index.js';
import { emitReport, rate, table } from '../report.js';
import { buildMpt, commitMptBlock } from './mpt-run.js';
import { blockChangesets, genesis, transfers } from './workload.js';

interface Size {
  accounts: number;
  blockTransfers: number;
  timedBlocks: number;
  mptAccounts: number;
  mptBlockTransfers: number;
}

const FULL: Size = { accounts: 1_000_000, blockTransfers: 60_000, timedBlocks: 7, mptAccounts: 100_000, mptBlockTransfers: 60_000 };
const QUICK: Size = { accounts: 200_000, blockTransfers: 60_000, timedBlocks: 3, mptAccounts: 20_000, mptBlockTransfers: 6_000 };
const TARGET_BLOCK_MS = 400;
const TARGET_MPT_RATIO = 10;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
  const size = values.quick ? QUICK : FULL;
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-commit-'));
  try {
    log(`bench:commit ${values.quick ? 'quick' : 'full'} · ${rate(size.accounts)} accounts · ${rate(size.blockTransfers)} transfers per block`);
    // The snapshot falls due on the block after the timed ones, so none runs while timing.
    const snapshotAt = 1 + size.timedBlocks + 1;
    const store = await CommitStore.open(work, { snapshotInterval: snapshotAt, keepRecent: 0, hashThreads: 2 });
    let started = performance.now();
    store.applyChangesets(genesis(size.accounts));
    await store.commit();
    log(`· genesis committed in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const blockMs: number[] = [];
    for (let h = 2; h < 2 + size.timedBlocks; h++) {
      const changesets = blockChangesets(h, transfers(h, size.blockTransfers, size.accounts));
      started = performance.now();
      store.applyChangesets(changesets);
      await store.commit();
      blockMs.push(performance.now() - started);
      log(`· block ${h}: ${blockMs.at(-1)!.toFixed(0)} ms`);
    }
    const snapHeight = 2 + size.timedBlocks;
    store.applyChangesets(blockChangesets(snapHeight, transfers(snapHeight, size.blockTransfers, size.accounts)));
    await store.commit();
    await store.waitForSnapshot();
    const snap = store.snapshotStats();
    await store.close();

    log(`· MPT peer: building a ${rate(size.mptAccounts)}-account trie…`);
    const mpt = await buildMpt(size.mptAccounts);
    const mptSeconds = await commitMptBlock(mpt, 2, transfers(2, size.mptBlockTransfers, size.mptAccounts));

    const commitBlockMs = median(blockMs);
    const commitTxPerSec = size.blockTransfers / (commitBlockMs / 1000);
    const mptCommitTxPerSec = size.mptBlockTransfers / mptSeconds;
    const snapshotWriteMBPerSec = snap.bytes / 1e6 / snap.seconds;
    const ratio = commitTxPerSec / mptCommitTxPerSec;
    const output = {
      accounts: size.accounts,
      blockTransfers: size.blockTransfers,
      commitBlockMs,
      commitBlockMsAll: blockMs,
      commitTxPerSec,
      mptAccounts: size.mptAccounts,
      mptBlockTransfers: size.mptBlockTransfers,
      mptCommitTxPerSec,
      mptRatio: ratio,
      snapshotBytes: snap.bytes,
      snapshotSeconds: snap.seconds,
      snapshotWriteMBPerSec,
    };
    const text = table([
      ['figure', 'strata', '@ethereumjs/mpt', 'target'],
      ['commit one block (ms, median)', commitBlockMs.toFixed(0), (mptSeconds * 1000 * (size.blockTransfers / size.mptBlockTransfers)).toFixed(0),
        `≤ ${TARGET_BLOCK_MS}: ${commitBlockMs <= TARGET_BLOCK_MS ? 'met' : 'MISSED'}`],
      ['commit rate (transfers/s)', rate(commitTxPerSec), rate(mptCommitTxPerSec),
        `≥ ${TARGET_MPT_RATIO}× MPT: ${ratio.toFixed(1)}× ${ratio >= TARGET_MPT_RATIO ? 'met' : 'MISSED'}`],
      ['snapshot write (MB/s)', snapshotWriteMBPerSec.toFixed(0), '', `${(snap.bytes / 1e6).toFixed(0)} MB in ${snap.seconds.toFixed(2)} s`],
    ]);
    emitReport(text, output, values.json);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:commit failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
