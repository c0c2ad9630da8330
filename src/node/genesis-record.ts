/**
 * The genesis a home's chain started from, remembered as a hash in `data/genesis.sha256` on
 * the first start (as CometBFT keeps the genesis document's hash in its state; genesis.json is
 * routinely edited between `stratad init` and that start). A genesis.json changed afterwards
 * (another chain id, other balances) would make the node serve a different network on top of
 * this one's data, so a start with another genesis is refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { writeFileDurably } from '../chain/durable-file.js';

/** genesis.json differs from the one this home was initialised with. */
export class GenesisChangedError extends Error {
  constructor(file: string, recorded: string, actual: string) {
    super(
      `${file} is not the genesis this home's chain started from (recorded sha256 ${recorded}, the file now hashes to ${actual}); ` +
        'restore the original genesis.json, or initialise a new home (stratad init) for the other network',
    );
    this.name = 'GenesisChangedError';
  }
}

/** Where the hash is kept under a home's data directory. */
export function genesisRecordPath(dataDir: string): string {
  return join(dataDir, 'genesis.sha256');
}

/** sha256 of the genesis document's content: key order and whitespace do not count, values do. */
export function genesisHash(genesisJson: string): string {
  return createHash('sha256').update(canonicalJson(JSON.parse(genesisJson) as unknown)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Records the hash of `genesisFile` (on the first start of a home). */
export function recordGenesis(genesisFile: string, dataDir: string): void {
  writeFileDurably(genesisRecordPath(dataDir), `${genesisHash(readFileSync(genesisFile, 'utf8'))}\n`, 0o644);
}

/** Throws GenesisChangedError when a recorded hash differs from `genesisFile`'s; true when one was recorded. */
export function checkGenesis(genesisFile: string, dataDir: string): boolean {
  const path = genesisRecordPath(dataDir);
  if (!existsSync(path)) return false;
  const recorded = readFileSync(path, 'utf8').trim();
  const actual = genesisHash(readFileSync(genesisFile, 'utf8'));
  if (recorded !== actual) throw new GenesisChangedError(genesisFile, recorded, actual);
  return true;
}
