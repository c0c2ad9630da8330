/**
 * dump-iavl: memiavl's trees at a height as text files, one per module, for comparing two
 * nodes whose app hashes differ (`stratadb dump-iavl`, later the node's `debug dump-iavl`).
 */
import { toStoreError } from '../errors.js';
import { native } from '../native.js';

/** What was dumped for one module; `exists` is false when the tree is absent (no file). */
export interface DumpedTree {
  module: string;
  exists: boolean;
  version: number;
  /** Upper-case hex. */
  rootHash: string;
  leaves: number;
  path: string;
}

/** Options of {@link dumpIavl}. */
export interface DumpIavlOptions {
  /** Height to dump; 0 or absent = latest. */
  height?: number;
  /** Modules to dump; absent = every tree. */
  modules?: string[];
}

/** Dumps `committerDb` into `outDir`; fails with StoreIoError while a node holds the directory. */
export async function dumpIavl(committerDb: string, outDir: string, options: DumpIavlOptions = {}): Promise<DumpedTree[]> {
  try {
    return await native.NativeCommitStore.dumpIavl(committerDb, outDir, options.height ?? 0, options.modules ?? null);
  } catch (error) {
    throw toStoreError(error);
  }
}
