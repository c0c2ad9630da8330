/** CPU, heap and stack bounds of one JavaScript tracer. */

/** How far one JavaScript tracer may go before it is stopped. */
export interface JsTracerLimits {
  /** Absolute deadline as a `Date.now()` value; past it the trace fails with `execution timeout`. */
  deadlineMs: number;
  /** Heap the tracer may add to the engine's WebAssembly memory. */
  maxHeapBytes: number;
  /** JavaScript stack of the tracer; at most 256 KiB. */
  maxStackBytes: number;
}

/** geth's default trace timeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000;
/** Default heap allowance of one tracer. */
export const DEFAULT_MAX_HEAP_BYTES = 64 * 1024 * 1024;
/** The largest stack a tracer may have: deeper native recursion would overrun the engine's own stack. */
export const MAX_STACK_BYTES = 256 * 1024;

/** `partial` completed with defaults; the deadline defaults to 5 s from now and the stack is capped. */
export function jsTracerLimits(partial: Partial<JsTracerLimits> = {}): JsTracerLimits {
  return {
    deadlineMs: partial.deadlineMs ?? Date.now() + DEFAULT_TRACE_TIMEOUT_MS,
    maxHeapBytes: partial.maxHeapBytes ?? DEFAULT_MAX_HEAP_BYTES,
    maxStackBytes: Math.min(partial.maxStackBytes ?? MAX_STACK_BYTES, MAX_STACK_BYTES),
  };
}
