/** Crash-safe file writes: a reader sees the old file or the new one, never a torn one. */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `text` to `path` via a synced temporary file and rename, then syncs the directory. */
export function writeFileDurably(path: string, text: string, mode = 0o600): void {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir); // makes the rename itself durable
  } finally {
    closeSync(dir);
  }
}
