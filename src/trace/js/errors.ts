/** Errors of the JavaScript tracer host, worded as geth words them where geth has a text. */
import { TraceError } from '../errors.js';

/** Base of every JavaScript tracer failure. */
export class JsTracerError extends TraceError {}

/** The engine was used before `loadJsTracerEngine()` finished. */
export class JsTracerEngineNotLoadedError extends JsTracerError {
  constructor() {
    super('the JavaScript tracer engine is not loaded: await loadJsTracerEngine() before creating JavaScript tracers');
  }
}

/** The tracer source does not compile or does not evaluate to a usable tracer object. */
export class JsTracerCompileError extends JsTracerError {}

/** A tracer function threw; the message carries the JS position and the function name. */
export class JsTracerRuntimeError extends JsTracerError {}

/** The trace ran past its deadline (geth: `execution timeout`). */
export class JsTracerTimeoutError extends JsTracerError {}

/** The tracer allocated more than its heap allowance. */
export class JsTracerMemoryError extends JsTracerError {}

/** The tracer recursed past its stack allowance. */
export class JsTracerStackError extends JsTracerError {}

/** A `db` read asked for state the host had not loaded before the call. */
export class JsTracerStateError extends JsTracerError {}
