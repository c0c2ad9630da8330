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
export { encodeChangelogEntry, setEntryVersion } from './changelog-entry.js';
export * from './errors.js';
export {
  CompositeStateStore,
  SharedStateReader,
  DEFAULT_STATE_STORE_CONFIG,
  EVM_STORE,
  cosmosStoreDir,
  evmStoreDir,
  type StateStoreConfig,
  type StateStoreShare,
  type SharedStoreToken,
} from './composite-state-store.js';
export { SplitSafetyCheckError, type SideVersions } from './split-checks.js';
export { PruningManager, type PruningOptions, type Prunable } from './pruning-manager.js';
export * from './sc/index.js';
export { createMemoryBudget, type MemoryBudget, type MemoryBudgetSizes, type MemoryBudgetUsage } from './memory-budget.js';
export { keccak256Many } from './keccak-many.js';
export { limitMallocArenas, mallocArenas, mallocUsage, trimMalloc, type MallocUsage } from './process-allocator.js';
export { PackedKvOps } from './packed-kv-ops.js';
export { PlainKv, prefixEnd, type PlainKvEntry, type PlainKvOp, type PlainKvOptions, type PlainKvRange } from './plain-kv.js';
export * from './snapshots/index.js';
export {
  SenderRecovery,
  sharedSenderRecovery,
  packRecoveryItems,
  RECOVERY_ITEM_BYTES,
  type RecoveryItem,
  type RecoveredSenders,
  SignedMessageBatch,
  type RecoveredMessages,
} from './sender-recovery.js';
