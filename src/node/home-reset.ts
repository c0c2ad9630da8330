/**
 * `stratad tendermint unsafe-reset-all`: what CometBFT's reset does to a home — every store and
 * every file under `data/` goes (block store, state commitment, state stores, snapshots, the
 * recorded genesis hash), the validator's signing state goes back to height 0, and the address
 * book goes unless it is kept. Keys, genesis and configuration stay. A held home is refused
 * before anything is removed.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { writeSignState } from '../chain/keys.js';
import { homeHeldByAnotherProcess, homeHeldMessage } from './home-lock.js';
import type { HomePaths } from './home.js';

/** The home is held by a running node; nothing was removed. */
export class HomeHeldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HomeHeldError';
  }
}

/** What a reset removed and rewrote, for the operator's output. */
export interface ResetOutcome {
  /** The data directory that was emptied. */
  dataDir: string;
  /** Entries of `data/` that were removed. */
  removed: string[];
  /** The signing-state file written back to height 0 (undefined when the home has no validator key). */
  signState: string | undefined;
  /** The address book removed, kept, or absent. */
  addrBook: { path: string; action: 'removed' | 'kept' | 'absent' };
}

/** `config/addrbook.json`: where CometBFT keeps the peers it learnt. */
export function addrBookPath(paths: HomePaths): string {
  return join(paths.config, 'addrbook.json');
}

/** Empties `data/`, resets the signing state and (unless kept) removes the address book. */
export function resetHome(paths: HomePaths, options: { keepAddrBook: boolean }): ResetOutcome {
  if (homeHeldByAnotherProcess(paths.data)) throw new HomeHeldError(homeHeldMessage(paths.data));
  const removed = existsSync(paths.data) ? readdirSync(paths.data).sort() : [];
  for (const name of removed) rmSync(join(paths.data, name), { recursive: true, force: true });
  mkdirSync(paths.data, { recursive: true, mode: 0o700 });
  let signState: string | undefined;
  if (existsSync(paths.validatorKey)) {
    writeSignState(paths.signState, { height: 0, round: 0, step: 0 });
    signState = paths.signState;
  }
  const book = addrBookPath(paths);
  let action: ResetOutcome['addrBook']['action'] = 'absent';
  if (existsSync(book)) {
    if (options.keepAddrBook) {
      action = 'kept';
    } else {
      rmSync(book, { force: true });
      action = 'removed';
    }
  }
  return { dataDir: paths.data, removed, signState, addrBook: { path: book, action } };
}
