/** Re-executing stored blocks for traces: one replay loop, pausable between transactions. */
export * from './block-replay.js';
export * from './paused-replays.js';
export * from './trace-block.js';
