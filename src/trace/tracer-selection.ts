/**
 * Which tracer a request gets: the struct logger (no tracer, or geth's `opcodeTracer`), a
 * native tracer by name, or JavaScript tracer source in the sandbox.
 */
import { StatePreload, loadJsTracerEngine } from './js/index.js';
import { createTracer, isNativeTracer } from './registry.js';
import { StructLogger, type StructLoggerConfig } from './struct-logger.js';
import type { JsonValue, Tracer } from './types.js';

/** What a trace request asks of its tracer. */
export interface TraceRequestOptions {
  /** A tracer name or JavaScript source; undefined for the struct logger. */
  readonly tracer: string | undefined;
  /** The struct logger's options. */
  readonly structLogger: StructLoggerConfig;
  readonly tracerConfig: JsonValue | undefined;
  /** geth's `timeout` as given (Go duration syntax). */
  readonly timeout: string | undefined;
}

function isStructLogger(options: TraceRequestOptions): boolean {
  return options.tracer === undefined || options.tracer === 'opcodeTracer';
}

/** Loads what the requested tracer needs before any transaction runs: the JavaScript engine, once. */
export async function prepareTracer(options: TraceRequestOptions): Promise<void> {
  if (!isStructLogger(options) && !isNativeTracer(options.tracer!)) await loadJsTracerEngine();
}

/** What bounds a selected tracer. */
export interface TracerBounds {
  /** Cap on the struct logger's encoded struct logs. */
  readonly maxStructLogBytes: number;
  /** The per-transaction deadline, which a JavaScript tracer also enforces inside its sandbox. */
  readonly timeoutMs: number;
}

/** A fresh tracer for one transaction; throws when the tracer or its config is invalid. */
export function selectTracer(options: TraceRequestOptions, bounds: TracerBounds, preload?: StatePreload): Tracer {
  if (isStructLogger(options)) return new StructLogger({ ...options.structLogger, maxBytes: bounds.maxStructLogBytes });
  // A loop in the tracer itself runs inside the sandbox, where the EVM's deadline cannot see it.
  return createTracer(options.tracer!, options.tracerConfig, { deadlineMs: Date.now() + bounds.timeoutMs }, preload);
}
