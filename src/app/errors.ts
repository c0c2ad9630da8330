/** Typed errors of the state machine. */

/** Base class of the app's errors. */
export class AppError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** genesis.json is missing a field or holds a value the node cannot use. */
export class GenesisError extends AppError {}

/** A state read asked for a height older than the SS still keeps. */
export class HeightPrunedError extends AppError {
  constructor(readonly requested: number, readonly earliest: number) {
    super(`height ${requested} is not available: the earliest height kept is ${earliest} (raise ss-keep-recent to keep more history)`);
  }
}

/** A state read asked for a height the node has not committed yet. */
export class HeightNotCommittedError extends AppError {
  constructor(readonly requested: number, readonly latest: number) {
    super(`height ${requested} is not available yet: the latest committed height is ${latest}`);
  }
}

/** A block was handed to executeBlock out of order or before initChain. */
export class BlockOrderError extends AppError {}

/** The app was used after close(). */
export class AppClosedError extends AppError {
  constructor() {
    super('the app is closed; open it again before using it');
  }
}
