/**
 * The same versioned reads and writes on the stores a TypeScript developer would pick
 * instead: lmdb (LMDB) and classic-level (LevelDB). Versions are encoded the usual way for
 * an ordered KV store: key ‖ big-endian (2^64 − 1 − version), so the newest version sorts
 * first and "newest at or below v" is one range read with limit 1.
 */
import { open as openLmdb } from 'lmdb';
import { ClassicLevel } from 'classic-level';
import { drawReads, isWord, loadVersion, balanceValue, visibleLoadVersion, type WorkloadSize } from './workload.js';
import type { Accounts } from './strata-run.js';
import { BenchError, secondsSince } from './timing.js';

/** Figures of one peer. */
export interface PeerFigures {
  loadWritesPerSec: number;
  getPerSec: number;
  reads: number;
}

const VERSION_END = Buffer.alloc(8, 0xff);
// Writes per transaction/batch, as a block-sized unit of work.
const WRITE_BATCH = 240_000;

function versionedKey(key: Buffer, version: number): Buffer {
  const out = Buffer.allocUnsafe(key.length + 8);
  key.copy(out, 0);
  // 2^64 − 1 − version, for version < 2^32.
  out.writeUInt32BE(0xffffffff, key.length);
  out.writeUInt32BE(0xffffffff - version, key.length + 4);
  return out;
}

function* loadBatches(size: WorkloadSize, accounts: Accounts): Generator<Array<[Buffer, Buffer]>> {
  let batch: Array<[Buffer, Buffer]> = [];
  for (let k = 1; k <= size.versions; k++) {
    const version = loadVersion(k);
    for (let i = 0; i < size.accounts; i++) {
      batch.push([versionedKey(accounts.balanceKeys[i]!, version), balanceValue(i, version)]);
      if (batch.length === WRITE_BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

function check(value: Buffer | undefined, i: number, version: number, versions: number, peer: string): void {
  if (!isWord(value, i * 1000003 + visibleLoadVersion(version, versions))) {
    throw new BenchError(`${peer} returned a wrong value for account ${i} at version ${version}`);
  }
}

/** lmdb: synchronous getRange reads, one transaction per write batch. */
export async function runLmdb(dir: string, size: WorkloadSize, accounts: Accounts): Promise<PeerFigures> {
  const db = openLmdb<Buffer, Buffer>({ path: dir, keyEncoding: 'binary', encoding: 'binary', compression: false, mapSize: 16 * 2 ** 30 });
  try {
    let writes = 0;
    let seconds = 0;
    for (const batch of loadBatches(size, accounts)) {
      const start = process.hrtime.bigint();
      await db.transaction(() => {
        for (const [key, value] of batch) db.put(key, value);
      });
      seconds += secondsSince(start);
      writes += batch.length;
    }
    const draws = drawReads(size);
    const readKeys = Array.from(draws.accounts, (i) => Buffer.from(accounts.balanceKeys[i]!));  // as for Strata
    const read = (r: number): Buffer | undefined => {
      const key = readKeys[r]!;
      let value: Buffer | undefined;
      for (const entry of db.getRange({ start: versionedKey(key, draws.versions[r]!), end: Buffer.concat([key, VERSION_END]), limit: 1 })) {
        value = entry.value;
      }
      return value;
    };
    for (let r = 0; r < size.reads; r++) read(r);  // warm-up, untimed, as for Strata
    const start = process.hrtime.bigint();
    for (let r = 0; r < size.reads; r++) check(read(r), draws.accounts[r]!, draws.versions[r]!, size.versions, 'lmdb');
    return { loadWritesPerSec: writes / seconds, getPerSec: size.reads / secondsSince(start), reads: size.reads };
  } finally {
    await db.close();
  }
}

/** classic-level: batch writes, one range iterator (limit 1) per versioned read. */
export async function runClassicLevel(dir: string, size: WorkloadSize, accounts: Accounts, reads: number): Promise<PeerFigures> {
  const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    let writes = 0;
    let seconds = 0;
    for (const batch of loadBatches(size, accounts)) {
      const start = process.hrtime.bigint();
      await db.batch(batch.map(([key, value]) => ({ type: 'put' as const, key, value })));
      seconds += secondsSince(start);
      writes += batch.length;
    }
    // The same steady state as Strata's store, which is compacted after its load.
    await db.compactRange(Buffer.alloc(0), Buffer.alloc(64, 0xff));
    const draws = drawReads({ ...size, reads });
    const readKeys = Array.from(draws.accounts, (i) => Buffer.from(accounts.balanceKeys[i]!));  // as for Strata
    const read = async (r: number): Promise<Buffer | undefined> => {
      const key = readKeys[r]!;
      const found = await db.iterator({ gte: versionedKey(key, draws.versions[r]!), lt: Buffer.concat([key, VERSION_END]), limit: 1 }).all();
      return found[0]?.[1];
    };
    for (let r = 0; r < reads; r++) await read(r);  // warm-up, untimed, as for Strata
    const start = process.hrtime.bigint();
    for (let r = 0; r < reads; r++) check(await read(r), draws.accounts[r]!, draws.versions[r]!, size.versions, 'classic-level');
    return { loadWritesPerSec: writes / seconds, getPerSec: reads / secondsSince(start), reads };
  } finally {
    await db.close();
  }
}
