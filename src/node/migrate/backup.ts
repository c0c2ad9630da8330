/**
 * The files a migration must carry across the wipe (spec "Migration procedure", steps 3 and
 * 5): the signing state, the validator and node keys and the genesis, copied into a
 * timestamped folder of the home before anything is deleted and copied back after the
 * re-initialisation. The two settings files are copied too, so the old settings can be put
 * back by hand.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

import { configPaths } from '../../config/index.js';
import type { HomePaths } from '../home.js';

/** One file of the home and its copy in the backup folder. */
export interface BackedUpFile {
  /** Where the file lives in the home. */
  readonly path: string;
  /** Where its copy goes. */
  readonly copy: string;
  /** Whether the migration copies it back after the re-initialisation. */
  readonly restored: boolean;
}

/** `migrate-backup-<UTC time>` under the home, e.g. `migrate-backup-20261125T204000Z`. */
export function backupDirName(now: Date): string {
  return `migrate-backup-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

/** The files to back up: those of the spec that exist, the node key, and the two settings files. */
export function backupPlan(paths: HomePaths, backupDir: string): BackedUpFile[] {
  const settings = configPaths(paths.home);
  const restored = [paths.signState, paths.validatorKey, paths.genesis, paths.nodeKey].filter((path) => existsSync(path));
  const kept = [settings.app, settings.node];
  const entry = (path: string, isRestored: boolean): BackedUpFile => ({ path, copy: join(backupDir, basename(path)), restored: isRestored });
  return [...restored.map((path) => entry(path, true)), ...kept.map((path) => entry(path, false))];
}

/** Copies every planned file into the backup folder (created; it must not exist) and checks each copy. */
export function writeBackup(backupDir: string, files: readonly BackedUpFile[]): void {
  mkdirSync(backupDir, { recursive: false, mode: 0o700 });
  for (const file of files) {
    copyFileSync(file.path, file.copy);
    chmodSync(file.copy, statSync(file.path).mode & 0o777);
    if (!readFileSync(file.copy).equals(readFileSync(file.path))) throw new Error(`the copy ${file.copy} differs from ${file.path}`);
  }
}

/** Copies the restored files back to their places in the home, keeping their modes. */
export function restoreBackup(files: readonly BackedUpFile[]): void {
  for (const file of files) {
    if (!file.restored) continue;
    copyFileSync(file.copy, file.path);
    chmodSync(file.path, statSync(file.copy).mode & 0o777);
  }
}
