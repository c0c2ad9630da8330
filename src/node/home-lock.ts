/**
 * Whether another process holds a home, asked before anything else is checked: a second
 * `stratad start` on a running home must be told so, not that the first one's ports are busy.
 * memiavl's exclusive flock on `committer.db/LOCK` is what keeps a second process out; this
 * asks for a shared lock without waiting (util-linux `flock`, part of every Debian system)
 * and releases it at once, so it changes nothing on disk.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { memiavlDir } from '../store/index.js';

/** The message memiavl gives a second process, for `dataDir`'s commitment. */
export function homeHeldMessage(dataDir: string): string {
  return `failed to initialize database: resource temporarily unavailable (${memiavlDir(dataDir)} is held by another process, normally a running node; stop it first)`;
}

/** True when another process holds the home's state commitment lock. */
export function homeHeldByAnotherProcess(dataDir: string): boolean {
  const lock = join(memiavlDir(dataDir), 'LOCK');
  if (!existsSync(lock)) return false;
  const probe = spawnSync('flock', ['--nonblock', '--shared', lock, 'true'], { stdio: 'ignore' });
  // Exit status 1 is flock's "would block"; a missing flock binary (error) is no evidence either way.
  return probe.error === undefined && probe.status === 1;
}
