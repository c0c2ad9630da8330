/**
 * Sizes on disk of the stores under a home's `data/` directory, for the metrics. A walk of a
 * large store costs a directory read per folder, so a result is reused for a minute and only
 * one walk runs at a time.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** How long a measurement is reused. */
const CACHE_MS = 60_000;

/** Bytes of every file under `dir` (0 when it vanished meanwhile, as pruning removes files). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await bytesUnder(path);
    else if (entry.isFile()) total += await stat(path).then((s) => s.size, () => 0);
  }
  return total;
}

/** Cached per-store sizes of one data directory: each top-level entry is one store. */
export class StoreSizes {
  #measured: Promise<Map<string, number>> | undefined;
  #at = 0;

  constructor(private readonly dataDir: string) {}

  /** Bytes by store name (`committer.db`, `blockstore`, …), measured at most once a minute. */
  read(): Promise<Map<string, number>> {
    if (!this.#measured || Date.now() - this.#at > CACHE_MS) {
      this.#at = Date.now();
      this.#measured = this.#measure();
    }
    return this.#measured;
  }

  async #measure(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    const entries = await readdir(this.dataDir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(this.dataDir, entry.name);
      // Loose files (signing state, proposal log) are not stores.
      if (entry.isDirectory() || entry.name.endsWith('.db')) sizes.set(entry.name, entry.isDirectory() ? await bytesUnder(path) : (await stat(path)).size);
    }
    return sizes;
  }
}
