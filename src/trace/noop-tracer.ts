/** geth's `noopTracer`: runs the transaction and reports nothing. */
import type { JsonValue, Tracer } from './types.js';

/** A tracer whose result is always `{}`. */
export class NoopTracer implements Tracer {
  result(): JsonValue {
    return {};
  }
}
