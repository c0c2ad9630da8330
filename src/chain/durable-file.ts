/** Crash-safe file writes: a reader sees the old file or the new one, never a torn one. */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
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

/**
 * {@link writeFileDurably} with the writes and syncs on libuv's threads: a block's records are
 * written this way, so the JavaScript thread admits transactions while the disk syncs.
 */
export async function writeFileDurablyAsync(path: string, text: string, mode = 0o600): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, 'w', mode);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync(); // makes the rename itself durable
  } finally {
    await dir.close();
  }
}
