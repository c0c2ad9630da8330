/**
 * An in-memory model of MvccStore: for each store, each key's versions in ascending order,
 * a null value being a delete. Model tests run the same operations against the model and
 * a real store and compare every answer.
 */

/** One stored version of one key. */
export interface ModelCell {
  version: bigint;
  value: Buffer | null;
}

/** One change of a block, as the model records it. */
export interface ModelPair {
  key: Buffer;
  value: Buffer | null;
}

/** A live stored version, in the order MvccStore.rawEntries yields them. */
export interface ModelRawEntry {
  store: string;
  key: Buffer;
  value: Buffer;
  version: bigint;
}

/** Version 0 is stored as 1 (0 is reserved for metadata). */
export function storedVersion(version: bigint): bigint {
  return version === 0n ? 1n : version;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

export class MvccModel {
  /** store name → key (latin1) → versions, oldest first. */
  readonly #stores = new Map<string, Map<string, ModelCell[]>>();
  latest = 0n;
  earliest = 0n;

  /** Records one block; versions must not go backwards (the store enforces that too). */
  apply(version: bigint, changesets: ReadonlyArray<{ name: string; pairs: readonly ModelPair[] }>): void {
    const stored = storedVersion(version);
    for (const { name, pairs } of changesets) {
      let keys = this.#stores.get(name);
      if (!keys) {
        keys = new Map();
        this.#stores.set(name, keys);
      }
      for (const { key, value } of pairs) {
        const id = key.toString('latin1');
        const cells = keys.get(id) ?? [];
        const last = cells[cells.length - 1];
        // A second write at the same stored version (genesis 0 then block 1) replaces the first.
        if (last && last.version === stored) last.value = value;
        else cells.push({ version: stored, value });
        keys.set(id, cells);
      }
    }
    if (stored > this.latest) this.latest = stored;
  }

  /** Newest value at or below `version`; undefined when deleted, absent or below earliest. */
  get(store: string, version: bigint, key: Uint8Array): Buffer | undefined {
    const cells = this.#stores.get(store)?.get(Buffer.from(key).toString('latin1'));
    return cells ? this.#visible(cells, version) : undefined;
  }

  /** The visible [key, value] pairs of `store` at `version` within [start, end). */
  iterate(store: string, version: bigint, start: Uint8Array | undefined, end: Uint8Array | undefined, reverse: boolean): Array<[Buffer, Buffer]> {
    const out: Array<[Buffer, Buffer]> = [];
    for (const [id, cells] of this.#stores.get(store) ?? []) {
      const key = Buffer.from(id, 'latin1');
      if (start && compareBytes(key, start) < 0) continue;
      if (end && compareBytes(key, end) >= 0) continue;
      const value = this.#visible(cells, version);
      if (value !== undefined) out.push([key, value]);
    }
    out.sort((a, b) => compareBytes(a[0], b[0]));
    return reverse ? out.reverse() : out;
  }

  /**
   * Keeps each key's newest version at or below `version` (unless it is a delete, which hides
   * everything older and so goes too), drops the older ones and raises earliest to
   * version + 1. Returns how many stored versions were dropped.
   */
  prune(version: bigint): number {
    let dropped = 0;
    for (const keys of this.#stores.values()) {
      for (const [id, cells] of keys) {
        let newest = -1;
        for (let i = 0; i < cells.length && (cells[i] as ModelCell).version <= version; i++) newest = i;
        if (newest < 0) continue;
        const keepNewest = (cells[newest] as ModelCell).value !== null;
        const kept = cells.filter((cell, i) => cell.version > version || (i === newest && keepNewest));
        dropped += cells.length - kept.length;
        if (kept.length === 0) keys.delete(id);
        else keys.set(id, kept);
      }
    }
    if (version + 1n > this.earliest) this.earliest = version + 1n;
    return dropped;
  }

  /**
   * Every live stored version: by full key `s/k:<store>/<key>`, newest version first. With
   * `collapsePruned` (the rocksdb layout), a version kept by pruning is reported at the prune
   * height: RocksDB zeroes the timestamps below its history floor, so the original is gone.
   */
  rawEntries(collapsePruned = false): ModelRawEntry[] {
    const pruneHeight = this.earliest - 1n;
    const out: Array<ModelRawEntry & { fullKey: Buffer }> = [];
    for (const [store, keys] of this.#stores) {
      for (const [id, cells] of keys) {
        const key = Buffer.from(id, 'latin1');
        const fullKey = Buffer.concat([Buffer.from(`s/k:${store}/`, 'latin1'), key]);
        for (const cell of cells) {
          if (cell.value === null) continue;
          const version = collapsePruned && cell.version <= pruneHeight ? pruneHeight : cell.version;
          out.push({ store, key, value: cell.value, version, fullKey });
        }
      }
    }
    out.sort((a, b) => compareBytes(a.fullKey, b.fullKey) || (a.version > b.version ? -1 : a.version < b.version ? 1 : 0));
    return out.map(({ store, key, value, version }) => ({ store, key, value, version }));
  }

  #visible(cells: readonly ModelCell[], version: bigint): Buffer | undefined {
    if (version < this.earliest) return undefined;
    for (let i = cells.length - 1; i >= 0; i--) {
      const cell = cells[i] as ModelCell;
      if (cell.version <= version) return cell.value ?? undefined;
    }
    return undefined;
  }
}
