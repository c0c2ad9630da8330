/**
 * EvmStateStore: the dedicated EVM state store of a node running with `evm-ss-split = true`,
 * under `data/evm_ss/` — one MVCC DB, or five (nonce, codehash, code, storage, legacy) with
 * `evm-ss-separate-dbs = true`. It holds store "evm" only and serves point queries only:
 * `iterator()` throws NotSupportedError, because iteration must be served by the Cosmos SS.
 */
import { toStoreError } from './errors.js';
import type { MvccStore } from './mvcc-store.js';
import type { NativeStore } from './native.js';
import { StateStore, nativeOf, type Backend, type MvccStoreOptions } from './state-store.js';

/** Options of the EVM SS. */
export interface EvmStoreOptions extends MvccStoreOptions {
  /** One DB per key family (`evm-ss-separate-dbs`); default false. */
  separateDbs?: boolean;
}

/** The EVM SS. */
export class EvmStateStore extends StateStore {
  /** Whether the store is split into five sub-DBs. */
  readonly separateDbs: boolean;

  private constructor(dir: string, backend: Backend, separateDbs: boolean, nativeStore: NativeStore) {
    super(dir, backend, nativeStore);
    this.separateDbs = separateDbs;
  }

  /** Opens or creates the EVM SS in `dir`. */
  static async open(dir: string, options: EvmStoreOptions = {}): Promise<EvmStateStore> {
    const backend: Backend = options.backend ?? 'pebbledb';
    const separateDbs = options.separateDbs ?? false;
    const nativeStore = await StateStore.openNative('evm', dir, { ...options, backend, separateDbs });
    return new EvmStateStore(dir, backend, separateDbs, nativeStore);
  }

  /** Applies the "evm" changesets of a whole block's encoded entry (the Cosmos SS logs the
   *  same bytes), so a split node encodes each block once. */
  async applyBlock(entry: Buffer): Promise<void> {
    try {
      await this.nativeStore.applyBlock(entry);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** Catches up to `cosmos`'s latest version from the whole blocks in its changelog. */
  async catchUpFrom(cosmos: MvccStore): Promise<void> {
    try {
      await this.nativeStore.catchUpFrom(nativeOf(cosmos));
    } catch (error) {
      throw toStoreError(error);
    }
  }
}
