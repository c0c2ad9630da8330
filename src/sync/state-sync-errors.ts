/** Typed errors of state sync; each message is what an operator reads, with what to do next. */

/** State sync could not be done; nothing was imported (or a partial import was discarded). */
export class StateSyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateSyncError';
  }
}

/**
 * The trusted block could not be established: the RPC servers disagree with `trust-hash`, with
 * each other or with genesis, are unreachable, or the block is older than `trust-period`.
 */
export class TrustedHeaderError extends StateSyncError {
  constructor(message: string) {
    super(message);
    this.name = 'TrustedHeaderError';
  }
}
