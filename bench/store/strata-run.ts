/**
 * Runs the storage workloads through Strata's TypeScript store (Node-API).
 */
import { MvccStore, type Backend, type NamedChangeset } from '../../src/store/index.js';
import {
  COUNTER_SLOT,
  FEE_COLLECTOR_ACCOUNT,
  TOKEN_ACCOUNT,
  address,
  balanceKey,
  balanceSlot,
  balanceValue,
  drawBatches,
  drawReads,
  drawTransfers,
  isWord,
  loadVersion,
  nonceKey,
  nonceValue,
  storageKey,
  tokenValue,
  visibleLoadVersion,
  word,
  type WorkloadSize,
} from './workload.js';
import { BenchError, secondsSince } from './timing.js';

/** Shared, precomputed account data (addresses and balance keys). */
export interface Accounts {
  addresses: Buffer[];
  balanceKeys: Buffer[];
}

/** Derives every account's address and balance key once. */
export function buildAccounts(count: number): Accounts {
  const addresses = new Array<Buffer>(count);
  const balanceKeys = new Array<Buffer>(count);
  for (let i = 0; i < count; i++) {
    addresses[i] = address(i);
    balanceKeys[i] = balanceKey(addresses[i]!);
  }
  return { addresses, balanceKeys };
}

async function load(store: MvccStore, size: WorkloadSize, accounts: Accounts): Promise<number> {
  const start = process.hrtime.bigint();
  for (let k = 1; k <= size.versions; k++) {
    const version = loadVersion(k);
    const pairs = accounts.balanceKeys.map((key, i) => ({ key, value: balanceValue(i, version) }));
    await store.applyChangesets(version, [{ name: 'bank', pairs }]);
  }
  await store.drain();
  return (size.accounts * size.versions) / secondsSince(start);
}

function pointReads(store: MvccStore, size: WorkloadSize, accounts: Accounts): number {
  const draws = drawReads(size);
  // Like the native driver's list of expected reads: each read's own copy of its key, in draw
  // order, built before the clock starts.
  const readKeys = Array.from(draws.accounts, (i) => Buffer.from(accounts.balanceKeys[i]!));
  // One untimed pass warms the block cache, as on a serving node; the native driver does the same.
  for (let r = 0; r < size.reads; r++) store.get('bank', draws.versions[r]!, readKeys[r]!);
  const start = process.hrtime.bigint();
  for (let r = 0; r < size.reads; r++) {
    const i = draws.accounts[r]!;
    const version = draws.versions[r]!;
    const value = store.get('bank', version, readKeys[r]!);
    if (!isWord(value, i * 1000003 + visibleLoadVersion(version, size.versions))) {
      throw new BenchError(`get returned a wrong value for account ${i} at version ${version}`);
    }
  }
  return size.reads / secondsSince(start);
}

function batchReads(store: MvccStore, size: WorkloadSize, accounts: Accounts, batchSize = 256): number {
  const draws = drawBatches(size, batchSize);
  // Each batch's own key copies, built before the clock, as the native driver builds them.
  const batches = Array.from({ length: size.batches }, (_, b) =>
    Array.from({ length: batchSize }, (_, k) => Buffer.from(accounts.balanceKeys[draws.accounts[b * batchSize + k]!]!)));
  for (let b = 0; b < size.batches; b++) store.getMany('bank', draws.versions[b]!, batches[b]!);  // warm-up, untimed
  const start = process.hrtime.bigint();
  for (let b = 0; b < size.batches; b++) {
    const version = draws.versions[b]!;
    const values = store.getMany('bank', version, batches[b]!);
    const visible = visibleLoadVersion(version, size.versions);
    for (let k = 0; k < batchSize; k++) {
      const i = draws.accounts[b * batchSize + k]!;
      if (!isWord(values[k], i * 1000003 + visible)) {
        throw new BenchError(`getMany returned a wrong value for account ${i} at version ${version}`);
      }
    }
  }
  return (size.batches * batchSize) / secondsSince(start);
}

/** One block of transfers: bank (sender, receiver balances, fee collector last) and evm nonces. */
function transferBlock(version: number, from: number, size: WorkloadSize, accounts: Accounts,
  draws: { senders: Uint32Array; receivers: Uint32Array }, feeKey: Buffer): NamedChangeset[] {
  const bank = new Array<{ key: Buffer; value: Buffer }>(2 * size.blockTxs + 1);
  const evm = new Array<{ key: Buffer; value: Buffer }>(size.blockTxs);
  const nonce = nonceValue(version);
  for (let t = 0; t < size.blockTxs; t++) {
    const s = draws.senders[from + t]!;
    const r = draws.receivers[from + t]!;
    bank[2 * t] = { key: accounts.balanceKeys[s]!, value: balanceValue(s, version) };
    bank[2 * t + 1] = { key: accounts.balanceKeys[r]!, value: balanceValue(r, version) };
    evm[t] = { key: nonceKey(accounts.addresses[s]!), value: nonce };
  }
  bank[2 * size.blockTxs] = { key: feeKey, value: balanceValue(FEE_COLLECTOR_ACCOUNT, version) };
  return [{ name: 'bank', pairs: bank }, { name: 'evm', pairs: evm }];
}

/** One block of ERC-20 transfers: nonce, two balance slots and the transfer counter per tx. */
function erc20Block(version: number, from: number, size: WorkloadSize, accounts: Accounts,
  draws: { senders: Uint32Array; receivers: Uint32Array }, token: Buffer): NamedChangeset[] {
  const evm = new Array<{ key: Buffer; value: Buffer }>(4 * size.blockTxs);
  const nonce = nonceValue(version);
  const counterKey = storageKey(token, COUNTER_SLOT);
  for (let t = 0; t < size.blockTxs; t++) {
    const s = draws.senders[from + t]!;
    const r = draws.receivers[from + t]!;
    evm[4 * t] = { key: nonceKey(accounts.addresses[s]!), value: nonce };
    evm[4 * t + 1] = { key: storageKey(token, balanceSlot(accounts.addresses[s]!)), value: tokenValue(s, version) };
    evm[4 * t + 2] = { key: storageKey(token, balanceSlot(accounts.addresses[r]!)), value: tokenValue(r, version) };
    evm[4 * t + 3] = { key: counterKey, value: word(from + t + 1) };
  }
  return [{ name: 'evm', pairs: evm }];
}

/** Builds every block first (not timed), then times submitting them until all are applied. */
async function ingest(store: MvccStore, firstVersion: number, size: WorkloadSize,
  build: (version: number, from: number) => NamedChangeset[]): Promise<number> {
  const blocks: NamedChangeset[][] = [];
  for (let b = 0; b < size.blocks; b++) blocks.push(build(firstVersion + b, b * size.blockTxs));
  const writes = blocks.reduce((n, cs) => n + cs.reduce((m, c) => m + c.pairs.length, 0), 0);
  const start = process.hrtime.bigint();
  for (let b = 0; b < blocks.length; b++) await store.applyChangesets(firstVersion + b, blocks[b]!);
  await store.drain();
  return writes / secondsSince(start);
}

/** Loads a fresh store in `dir` through Node-API, then compacts it to a steady state. */
export async function loadStrata(dir: string, backend: Backend, size: WorkloadSize, accounts: Accounts,
  asyncWriteBuffer = 100): Promise<number> {
  const store = await MvccStore.open(dir, { backend, asyncWriteBuffer });
  try {
    const rate = await load(store, size, accounts);
    await store.compact();
    return rate;
  } finally {
    await store.close();
  }
}

/** Point and batched reads on a loaded store. */
export async function readStrata(dir: string, backend: Backend, size: WorkloadSize,
  accounts: Accounts): Promise<{ getPerSec: number; getManyPerSec: number }> {
  const store = await MvccStore.open(dir, { backend });
  try {
    return { getPerSec: pointReads(store, size, accounts), getManyPerSec: batchReads(store, size, accounts) };
  } finally {
    await store.close();
  }
}

/** Figures of the write phases. */
export interface WriteFigures {
  ingestWritesPerSec: number;
  erc20IngestWritesPerSec: number;
  pruneVersionsPerSec: number;
  pruneVersionsDeleted: number;
}

/** Block ingest (transfers, then ERC-20) and prune on a loaded store. */
export async function writeStrata(dir: string, backend: Backend, size: WorkloadSize, accounts: Accounts,
  asyncWriteBuffer = 100): Promise<WriteFigures> {
  const store = await MvccStore.open(dir, { backend, asyncWriteBuffer });
  try {
    const transfers = drawTransfers(size, 3);
    const feeKey = balanceKey(address(FEE_COLLECTOR_ACCOUNT));
    const ingestStart = size.versions * 100 + 1;
    const ingestWritesPerSec = await ingest(store, ingestStart, size,
      (v, from) => transferBlock(v, from, size, accounts, transfers, feeKey));

    const tokenTransfers = drawTransfers(size, 4);
    const token = address(TOKEN_ACCOUNT);
    const erc20IngestWritesPerSec = await ingest(store, ingestStart + size.blocks, size,
      (v, from) => erc20Block(v, from, size, accounts, tokenTransfers, token));

    const pruneStart = process.hrtime.bigint();
    const pruned = await store.prune((size.versions - 1) * 100 + 50);
    const pruneSeconds = secondsSince(pruneStart);
    return {
      ingestWritesPerSec,
      erc20IngestWritesPerSec,
      pruneVersionsPerSec: pruned.versionsDeleted / pruneSeconds,
      pruneVersionsDeleted: pruned.versionsDeleted,
    };
  } finally {
    await store.close();
  }
}
