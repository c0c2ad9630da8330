/** The state store's public surface. */
export { MvccStore } from './mvcc-store.js';
export { EvmStateStore, type EvmStoreOptions } from './evm-state-store.js';
export {
  StateStore,
  MvccIterator,
  type Backend,
  type Version,
  type MvccStoreOptions,
  type KVPair,
  type NamedChangeset,
  type ImportItem,
  type RawEntry,
  type IteratorOptions,
  type PruneResult,
  type StoreStats,
} from './state-store.js';
export * from './errors.js';
