/** The provider layer: block names to heights, state at a height, and the chain's blocks. */
export * from './block-id.js';
export * from './block-reader.js';
export * from './chain-provider.js';
export * from './errors.js';
export * from './state-provider.js';
