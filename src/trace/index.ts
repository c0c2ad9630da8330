/**
 * geth-compatible transaction tracing over @ethereumjs/evm: the hooks, the bridge, the native
 * and JavaScript tracers, tracer selection and the bounds of a trace. Block replays, the
 * debug_ executions and the trace service are in ./replay, ./executions and ./service.
 */
export * from './call-tracer.js';
export * from './config.js';
export * from './errors.js';
export * from './evm-bridge.js';
export * from './flat-call-tracer.js';
export * from './four-byte-tracer.js';
export * from './hex.js';
export * from './js/index.js';
export * from './limits/index.js';
export * from './mux-tracer.js';
export * from './noop-tracer.js';
export * from './prestate-tracer.js';
export * from './registry.js';
export * from './service-errors.js';
export * from './state-reader.js';
export * from './trace-tx.js';
export * from './tracer-selection.js';
export * from './types.js';
export { StructLogger, type StructLoggerConfig } from './struct-logger.js';
