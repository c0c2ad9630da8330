/**
 * Whether the state commitment holds a committed version, read from memiavl's directory
 * without opening it: opening, even to read, takes locks and lets RocksDB write its MANIFEST,
 * OPTIONS and LOG files under FlatKV, and a start that may still be refused must change nothing.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { memiavlDir } from './commit-store.js';

const FRAME_HEADER = 8;

/** The first changelog frame of `path` is complete (u32 length ‖ u32 crc ‖ payload). */
function holdsOneEntry(path: string): boolean {
  const size = statSync(path).size;
  if (size < FRAME_HEADER) return false;
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(FRAME_HEADER);
    readSync(fd, header, 0, FRAME_HEADER, 0);
    return size >= FRAME_HEADER + header.readUInt32LE(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * True when memiavl under `dataDir` has committed a version: a snapshot above version 0, or a
 * complete entry in its changelog.
 */
export function commitmentHasHistory(dataDir: string): boolean {
  const dir = memiavlDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (names.some((n) => /^snapshot-\d{20}$/.test(n) && BigInt(n.slice('snapshot-'.length)) > 0n)) return true;
  let segments: string[] = [];
  try {
    segments = readdirSync(join(dir, 'changelog'));
  } catch {
    return false;
  }
  return segments.some((s) => /^\d{20}$/.test(s) && holdsOneEntry(join(dir, 'changelog', s)));
}
