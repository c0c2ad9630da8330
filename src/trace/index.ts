/** geth-compatible transaction tracing over @ethereumjs/evm: the hooks, the bridge and the native tracers. */
export * from './call-tracer.js';
export * from './config.js';
export * from './errors.js';
export * from './evm-bridge.js';
export * from './flat-call-tracer.js';
export * from './four-byte-tracer.js';
export * from './hex.js';
export * from './js/index.js';
export * from './mux-tracer.js';
export * from './noop-tracer.js';
export * from './prestate-tracer.js';
export * from './registry.js';
export * from './state-reader.js';
export * from './trace-tx.js';
export * from './types.js';
export { StructLogger, type StructLoggerConfig } from './struct-logger.js';
