/**
 * Typed errors of the state store. The native core tags every failure with a stable
 * `STRATA_<NAME>` code; this module turns those into classes callers can `instanceof`.
 */

/** Base class of every error raised by the state store. */
export class StoreError extends Error {
  /** Stable machine-readable code, e.g. `STRATA_INVALID_ARGUMENT`. */
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The caller passed something the store cannot accept; the message says what to pass. */
export class InvalidArgumentError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_INVALID_ARGUMENT');
  }
}

/** The store or iterator was closed. */
export class StoreClosedError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_CLOSED');
  }
}

/** The directory was written with the other `ss-backend` layout. */
export class LayoutMismatchError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_LAYOUT_MISMATCH');
  }
}

/** The operator-facing head of every corruption error, as CometBFT-based nodes word it. */
export const DATABASE_CORRUPTED = 'Database is corrupted';

/**
 * On-disk data failed a checksum or decoding check. The message starts `Database is
 * corrupted: ` and ends with the general remedy after any specific one the cause names.
 */
export class CorruptionError extends StoreError {
  constructor(message: string) {
    super(
      message.startsWith(DATABASE_CORRUPTED)
        ? message
        : `${DATABASE_CORRUPTED}: ${message}; if that does not help, reset the database ` +
            '(`stratad tendermint unsafe-reset-all`, then state sync) or restore it from a backup',
      'STRATA_CORRUPTION',
    );
  }
}

/** The filesystem or RocksDB reported an I/O failure. */
export class StoreIoError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_IO');
  }
}

/** The operation does not exist for this kind of store (e.g. iterating the EVM SS). */
export class NotSupportedError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_NOT_SUPPORTED');
  }
}

/** The background writer stopped after an error; logged blocks replay on reopen. */
export class WriterFailedError extends StoreError {
  constructor(message: string) {
    super(message, 'STRATA_WRITER_FAILED');
  }
}

const byCode: Record<string, new (message: string) => StoreError> = {
  STRATA_INVALID_ARGUMENT: InvalidArgumentError,
  STRATA_CLOSED: StoreClosedError,
  STRATA_LAYOUT_MISMATCH: LayoutMismatchError,
  STRATA_CORRUPTION: CorruptionError,
  STRATA_IO: StoreIoError,
  STRATA_NOT_SUPPORTED: NotSupportedError,
  STRATA_WRITER_FAILED: WriterFailedError,
};

/** Converts an error thrown by the native core into its typed class; others pass through. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreError || !(error instanceof Error)) return error;
  const code = (error as Error & { code?: unknown }).code;
  const ErrorClass = typeof code === 'string' ? byCode[code] : undefined;
  return ErrorClass ? new ErrorClass(error.message) : error;
}
