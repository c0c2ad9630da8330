/** JavaScript tracers (geth's JS tracer API) in a QuickJS WebAssembly sandbox. */
export * from './builtin/index.js';
export * from './engine.js';
export * from './errors.js';
export * from './js-tracer.js';
export * from './limits.js';
export { StatePreload } from './state-cache.js';
