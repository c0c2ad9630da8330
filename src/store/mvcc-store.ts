/**
 * MvccStore: the versioned key/value engine behind the State Store — the Cosmos SS of a split
 * node, or the only SS without the split. Adds iteration helpers and compaction to StateStore.
 */
import { toStoreError } from './errors.js';
import type { NativeIterator } from './native.js';
import { StateStore, type Backend, type MvccStoreOptions, type RawEntry, type Version } from './state-store.js';

const ITERATOR_BATCH = 256;

/** A versioned key/value store in one directory. */
export class MvccStore extends StateStore {
  /** Opens or creates a store, replaying its changelog from the latest applied version. */
  static async open(dir: string, options: MvccStoreOptions = {}): Promise<MvccStore> {
    const backend: Backend = options.backend ?? 'pebbledb';
    return new MvccStore(dir, backend, await StateStore.openNative('mvcc', dir, { ...options, backend }));
  }

  /** Every stored version of every key, tombstones excluded (for dump tools). */
  *rawEntries(): Generator<RawEntry> {
    let it: NativeIterator;
    try {
      it = this.nativeStore.rawIterator();
    } catch (error) {
      throw toStoreError(error);
    }
    try {
      for (;;) {
        let batch: Array<Buffer | string | number | bigint>;
        try {
          batch = it.nextBatch(ITERATOR_BATCH);
        } catch (error) {
          throw toStoreError(error);
        }
        if (batch.length === 0) return;
        for (let i = 0; i < batch.length; i += 4) {
          yield {
            store: batch[i] as string,
            key: batch[i + 1] as Buffer,
            value: batch[i + 2] as Buffer,
            version: batch[i + 3] as Version,
          };
        }
      }
    } finally {
      it.close();
    }
  }

  /** Full manual compaction. */
  async compact(): Promise<void> {
    try {
      await this.nativeStore.compact();
    } catch (error) {
      throw toStoreError(error);
    }
  }


  /** Resolves once RocksDB has no flush or compaction running or pending (for measurements). */
  async waitForCompactions(): Promise<void> {
    try {
      await this.nativeStore.waitForCompactions();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Version of the oldest entry still in the changelog; undefined when it holds none. */
  firstLoggedVersion(): Version | undefined {
    return this.call(() => this.nativeStore.firstLoggedVersion());
  }
}
