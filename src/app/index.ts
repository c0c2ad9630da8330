/** The state machine's public surface. */
export * from './app.js';
export type { AppReader } from './app-reader.js';
export { ReplicaApp } from './replica-app.js';
export * from './errors.js';
export * from './genesis.js';
export { mergeChangesets } from './changesets.js';
export * from './staking.js';
