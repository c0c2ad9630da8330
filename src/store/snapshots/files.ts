/** Durable small-file helpers of the snapshot code: a write is synced before it is relied on. */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Writes `bytes` to `path` (replacing it) and fsyncs the file. */
export async function writeFileSynced(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, 'w');
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Fsyncs a directory, so a rename or a new entry in it survives a crash. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
