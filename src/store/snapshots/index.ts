/** State-sync snapshots: the on-disk format, the writer and the restore. */
export * from './format.js';
export { SnapshotWriteError, exportStream, finishSnapshot, writeSnapshot, pruneSnapshots, type ExportedStream, type FinishOptions } from './writer.js';
export { readStreamItems, type StreamItem } from './items.js';
export {
  AppHashMismatchError,
  ChunkVerificationError,
  DirectoryChunkSource,
  RestoreTargetError,
  discardInterruptedRestore,
  restoreMarkerPath,
  restoreSnapshot,
  restoredFromPath,
  restoredHeight,
  verifiedExtra,
  type ChunkSource,
  type RestoreOptions,
  type RestoreResult,
} from './restore.js';
