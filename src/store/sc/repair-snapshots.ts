/**
 * repair-snapshots: brings a stopped node's memiavl directory past damaged snapshots
 * (`stratadb repair-snapshots`, the command a damaged snapshot's CorruptionError names).
 */
import { toStoreError } from '../errors.js';
import { native } from '../native.js';

/** One damaged snapshot directory that was removed. */
export interface RemovedSnapshot {
  version: number;
  path: string;
  /** The failed check, naming the file. */
  reason: string;
}

/** What {@link repairSnapshots} did. */
export interface SnapshotRepair {
  removed: RemovedSnapshot[];
  /** The snapshot `current` names now; null when none is left (the changelog replays from the start). */
  current: number | null;
  /** The latest committed version, which the next open reaches. */
  version: number;
}

/** Removes the damaged snapshots of a stopped node's `committerDb` and repoints `current`; CorruptionError, changing nothing, when the latest version would be lost. */
export async function repairSnapshots(committerDb: string): Promise<SnapshotRepair> {
  try {
    return await native.NativeCommitStore.repairSnapshots(committerDb);
  } catch (error) {
    throw toStoreError(error);
  }
}
