/** The debug_ tracing namespace. */
export { createDebugMethods, parseTraceConfig, type BlockTraceEntry, type DebugBackend, type TraceOptions } from './methods.js';
