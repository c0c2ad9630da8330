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

/** A block was handed to executeBlock out of order or before initChain. */
export class BlockOrderError extends AppError {}

/** The app was used after close(). */
export class AppClosedError extends AppError {
  constructor() {
    super('the app is closed; open it again before using it');
  }
}

/** The home holds a snapshot restore that did not finish; its partial state must not be served. */
export class InterruptedRestoreError extends AppError {}
