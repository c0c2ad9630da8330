/** The state store's public surface. */
export {
  MvccStore,
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
} from './mvcc-store.js';
export * from './errors.js';
