/**
 * dump-flatkv: FlatKV's rows (the `evm` store of the state commitment) as a text file beside
 * dump-iavl's per-module files, headed by the `evm_lattice` hash the app hash carries, so two
 * nodes' dumps can be compared store by store — EVM state included. FlatKV keeps only its
 * latest version, so only that version can be dumped. The rows come from the SC's own
 * state-sync export (FlatKV's section of the item stream), in key order.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { toStoreError } from '../errors.js';
import { native } from '../native.js';
import { readStreamItems } from '../snapshots/items.js';

/** The app-hash entry that carries FlatKV's hash. */
export const EVM_LATTICE = 'evm_lattice';

/** What was dumped of FlatKV. */
export interface DumpedFlatkv {
  /** The version dumped (FlatKV's latest). */
  version: number;
  /** Upper-case hex of the `evm_lattice` hash at that version ("" when the app hash has none). */
  latticeHash: string;
  rows: number;
  path: string;
}

/**
 * Dumps FlatKV (`flatkvDir`, committed together with memiavl in `memiavlDir`) at its latest
 * version into `<outDir>/evm_lattice`: a first line `Tree evm_lattice has version <v> and root
 * hash: <HEX>`, then `Key: <HEX>, Value: <HEX>` per physical row. Fails with StoreIoError while
 * a node holds the directories.
 */
export async function dumpFlatkv(memiavlDir: string, flatkvDir: string, outDir: string): Promise<DumpedFlatkv> {
  mkdirSync(outDir, { recursive: true });
  const stream = join(outDir, '.evm_lattice.stream');
  try {
    const sc = await native.NativeCommitStore.open(memiavlDir, flatkvDir, { createIfMissing: false, snapshotInterval: 0, asyncSnapshot: false });
    let version: number;
    let latticeHash = '';
    try {
      const last = sc.last();
      version = last.version;
      const lattice = last.storeInfos.find((info) => info.name === EVM_LATTICE);
      if (lattice) latticeHash = Buffer.from(lattice.hash).toString('hex').toUpperCase();
      await sc.exportSnapshot(stream);
    } finally {
      await sc.close();
    }
    const rows: Array<[Buffer, Buffer]> = [];
    let section = '';
    for await (const item of readStreamItems(stream)) {
      if (item.kind === 'store') section = item.name;
      else if (section === 'flatkv' && item.height === 0) rows.push([item.key, item.value]);
    }
    rows.sort(([a], [b]) => Buffer.compare(a, b));
    const lines = [`Tree ${EVM_LATTICE} has version ${version} and root hash: ${latticeHash}`];
    for (const [key, value] of rows) lines.push(`Key: ${key.toString('hex').toUpperCase()}, Value: ${value.toString('hex').toUpperCase()}`);
    const path = join(outDir, EVM_LATTICE);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return { version, latticeHash, rows: rows.length, path };
  } catch (error) {
    throw toStoreError(error);
  } finally {
    rmSync(stream, { force: true });
  }
}
