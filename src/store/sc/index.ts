/** The state-commitment layer's public surface. */
export {
  CommitStore,
  memiavlDir,
  flatkvDir,
  type CommitStoreOptions,
  type CommitInfo,
  type StoreCommitInfo,
  type RangeOptions,
  type StateSnapshotStats,
} from './commit-store.js';
export { dumpIavl, type DumpedTree, type DumpIavlOptions } from './dump-iavl.js';
export { dumpFlatkv, EVM_LATTICE, type DumpedFlatkv } from './dump-flatkv.js';
export { repairSnapshots, type RemovedSnapshot, type SnapshotRepair } from './repair-snapshots.js';
export { commitmentHasHistory } from './history.js';
