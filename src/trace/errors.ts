/** Typed tracer errors; geth's wording for the EVM's failure reasons is the EVM layer's (re-exported here). */

/** Base of every error the tracing layer raises. */
export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The tracer name is neither native nor bundled. Any other `tracer` string is JavaScript, so
 * a bare unknown name fails as geth's evaluation of it does.
 */
export class UnknownTracerError extends TraceError {
  constructor(readonly tracer: string) {
    super(`ReferenceError: ${tracer} is not defined`);
  }
}

/** `tracerConfig` does not fit the tracer (wrong type, contradictory options). */
export class TracerConfigError extends TraceError {}

/** The transaction could not be run at all (geth: `tracing failed: …`). */
export class TracingFailedError extends TraceError {
  constructor(reason: string) {
    super(`tracing failed: ${reason}`);
  }
}

export { gethVmError, type FailedStep } from '../evm/errors.js';
