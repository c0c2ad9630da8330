/** The tracing service: debug_ traces of stored blocks, calls and state access over a node's chain. */
export * from './debug-service.js';
export * from './execution-contexts.js';
export * from './traceable-blocks.js';
