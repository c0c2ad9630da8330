/** The state machine's public surface. */
export * from './app.js';
export * from './errors.js';
export * from './genesis.js';
export { mergeChangesets } from './changesets.js';
