/** The executions behind debug_traceCall and debug_traceStateAccess. */
export * from './state-access.js';
export * from './store-reads.js';
export * from './trace-call.js';
