/** The bounds of a trace: its deadline, the cap on traces at once, and re-runs for missed state. */
export * from './deadline.js';
export * from './gate.js';
export * from './state-preload.js';
export * from './timeout.js';
export * from './trace-limits.js';
