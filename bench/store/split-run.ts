/**
 * The EVM split's purpose, measured: the same 150k-TPS block stream with a realistic mix of
 * EVM and Cosmos writes, split off vs split on, in one run.
 *
 * Mixed block, per transaction: bank balances of sender and receiver (Cosmos), the sender's
 * EVM nonce, and two ERC-20 storage slots (sender and receiver); every 1,000th transaction
 * also deploys a contract (code and code hash). Five or seven writes per transaction.
 */
import { CompositeStateStore, DEFAULT_STATE_STORE_CONFIG, type Backend, type NamedChangeset } from '../../src/store/index.js';
import { Logger } from '../../src/log/logger.js';
import type { Accounts } from './strata-run.js';
import {
  TOKEN_ACCOUNT,
  address,
  balanceSlot,
  balanceValue,
  drawTransfers,
  nonceKey,
  nonceValue,
  storageKey,
  tokenValue,
  type WorkloadSize,
} from './workload.js';
import { BenchError, secondsSince } from './timing.js';

/**
 * Figures of the split benchmark. Write amplification of the Cosmos SS is given two ways:
 * per logical byte of the non-EVM modules' writes (what those modules pay — the same
 * denominator in both runs; the target figure), and per logical byte the Cosmos SS stored
 * (which includes the EVM bytes when the split is off).
 */
export interface SplitFigures {
  /** Cosmos SS compaction bytes per logical byte written by non-EVM modules. */
  cosmosWriteAmpSplitOff: number;
  cosmosWriteAmpSplitOn: number;
  /** Cosmos SS compaction bytes per logical byte the Cosmos SS stored. */
  cosmosWriteAmpPerStoredByteSplitOff: number;
  cosmosWriteAmpPerStoredByteSplitOn: number;
  ingestSplitOffWritesPerSec: number;
  ingestSplitOnWritesPerSec: number;
  evmGetViaCompositePerSec: number;
  evmGetDirectPerSec: number;
  evmGetViaCompositeP50Us: number;
  evmGetViaCompositeP99Us: number;
  evmGetDirectP50Us: number;
  evmGetDirectP99Us: number;
}

const DEPLOY_EVERY = 1000;
const CODE = Buffer.alloc(2048, 0x60);
const CODE_HASH = Buffer.alloc(32, 0xc0);
// Compaction has to reach the lower levels for write amplification to mean anything.
const WRITE_AMP_BLOCKS_MIN = 10;

interface MixedBlock {
  changesets: NamedChangeset[];
  bankBytes: number;
  writes: number;
}

function mixedBlock(version: number, from: number, size: WorkloadSize, accounts: Accounts,
  draws: { senders: Uint32Array; receivers: Uint32Array }, token: Buffer): MixedBlock {
  const bank: Array<{ key: Buffer; value: Buffer }> = [];
  const evm: Array<{ key: Buffer; value: Buffer }> = [];
  const nonce = nonceValue(version);
  let bankBytes = 0;
  for (let t = 0; t < size.blockTxs; t++) {
    const s = draws.senders[from + t]!;
    const r = draws.receivers[from + t]!;
    for (const i of [s, r]) {
      const pair = { key: accounts.balanceKeys[i]!, value: balanceValue(i, version) };
      bank.push(pair);
      bankBytes += pair.key.length + pair.value.length;
    }
    evm.push({ key: nonceKey(accounts.addresses[s]!), value: nonce });
    evm.push({ key: storageKey(token, balanceSlot(accounts.addresses[s]!)), value: tokenValue(s, version) });
    evm.push({ key: storageKey(token, balanceSlot(accounts.addresses[r]!)), value: tokenValue(r, version) });
    if ((from + t) % DEPLOY_EVERY === 0) {
      const contract = accounts.addresses[r]!;
      evm.push({ key: Buffer.concat([Buffer.of(0x07), contract]), value: CODE });
      evm.push({ key: Buffer.concat([Buffer.of(0x08), contract]), value: CODE_HASH });
    }
  }
  return {
    changesets: [{ name: 'bank', pairs: bank }, { name: 'evm', pairs: evm }],
    bankBytes,
    writes: bank.length + evm.length,
  };
}

const quiet = new Logger({ level: 'error' });

/** Ingests the mixed stream into a fresh composite; returns rate and Cosmos write amplification. */
async function ingestMixed(dataDir: string, backend: Backend, split: boolean, blocks: MixedBlock[]) {
  const store = await CompositeStateStore.open(
    dataDir,
    { ...DEFAULT_STATE_STORE_CONFIG, backend, evmSsSplit: split, keepRecent: 0 },
    quiet,
  );
  const writes = blocks.reduce((n, b) => n + b.writes, 0);
  const bankBytes = blocks.reduce((n, b) => n + b.bankBytes, 0);
  const start = process.hrtime.bigint();
  for (let b = 0; b < blocks.length; b++) await store.applyChangesets(b + 1, blocks[b]!.changesets);
  await store.drain();
  const ingestWritesPerSec = writes / secondsSince(start);
  // Count every compaction the stream caused, not just those finished by the last block.
  await store.cosmos.waitForCompactions();
  const stats = store.cosmos.stats();
  return { store, ingestWritesPerSec, writeAmpPerStoredByte: stats.compactionBytesWritten / stats.logicalBytesWritten,
    writeAmp: stats.compactionBytesWritten / bankBytes };
}

/** Throughput and latency of one read round. */
interface ReadFigures {
  perSec: number;
  p50: number;
  p99: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function medianFigures(rounds: ReadFigures[]): ReadFigures {
  return {
    perSec: median(rounds.map((r) => r.perSec)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
  };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Point reads of EVM nonces through `get`; throughput (untimed loop) and per-op latency. */
function evmReads(get: (key: Buffer, version: number) => Buffer | undefined, keys: Buffer[], versions: Float64Array): ReadFigures {
  const n = keys.length;
  let start = process.hrtime.bigint();
  for (let r = 0; r < n; r++) {
    if (get(keys[r]!, versions[r]!) === undefined) throw new BenchError('EVM read found no nonce for a written account');
  }
  const perSec = n / secondsSince(start);
  const latencies = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    start = process.hrtime.bigint();
    get(keys[r]!, versions[r]!);
    latencies[r] = Number(process.hrtime.bigint() - start) / 1000;
  }
  latencies.sort();
  return { perSec, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/** Runs the split benchmark under `work`; `rounds` alternating read rounds, best of each. */
export async function runSplit(work: string, backend: Backend, size: WorkloadSize, accounts: Accounts,
  rounds: number): Promise<SplitFigures> {
  const blockCount = Math.max(size.blocks, WRITE_AMP_BLOCKS_MIN);
  const draws = drawTransfers({ ...size, blocks: blockCount }, 5);
  const token = address(TOKEN_ACCOUNT);
  const blocks = Array.from({ length: blockCount }, (_, b) =>
    mixedBlock(b + 1, b * size.blockTxs, size, accounts, draws, token));

  const off = await ingestMixed(`${work}/split-off`, backend, false, blocks);
  await off.store.close();
  const on = await ingestMixed(`${work}/split-on`, backend, true, blocks);
  try {
    const evm = on.store.evm!;
    // Nonces of senders, read at random versions at or after their write.
    const reads = Math.min(size.reads, 200_000);
    const keys: Buffer[] = [];
    const versions = new Float64Array(reads);
    for (let r = 0; r < reads; r++) {
      const t = (r * 7919) % (blockCount * size.blockTxs);
      keys.push(nonceKey(accounts.addresses[draws.senders[t]!]!));
      versions[r] = Math.floor(t / size.blockTxs) + 1 + (r % 3);
    }
    // Alternating rounds; the median of each figure counts.
    const compositeRounds: ReadFigures[] = [];
    const directRounds: ReadFigures[] = [];
    for (let round = 0; round < rounds; round++) {
      directRounds.push(evmReads((key, v) => evm.get('evm', v, key), keys, versions));
      compositeRounds.push(evmReads((key, v) => on.store.get('evm', v, key), keys, versions));
    }
    const composite = medianFigures(compositeRounds);
    const direct = medianFigures(directRounds);
    return {
      cosmosWriteAmpSplitOff: off.writeAmp,
      cosmosWriteAmpSplitOn: on.writeAmp,
      cosmosWriteAmpPerStoredByteSplitOff: off.writeAmpPerStoredByte,
      cosmosWriteAmpPerStoredByteSplitOn: on.writeAmpPerStoredByte,
      ingestSplitOffWritesPerSec: off.ingestWritesPerSec,
      ingestSplitOnWritesPerSec: on.ingestWritesPerSec,
      evmGetViaCompositePerSec: composite.perSec,
      evmGetDirectPerSec: direct.perSec,
      evmGetViaCompositeP50Us: composite.p50,
      evmGetViaCompositeP99Us: composite.p99,
      evmGetDirectP50Us: direct.p50,
      evmGetDirectP99Us: direct.p99,
    };
  } finally {
    await on.store.close();
  }
}
