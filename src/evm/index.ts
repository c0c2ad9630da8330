/** EVM execution's public surface. */
export * from './block-context.js';
export * from './call.js';
export * from './common.js';
export * from './crypto.js';
export * from './errors.js';
export * from './executor.js';
export * from './keys.js';
export * from './state-manager.js';
export * from './validate.js';
export { revertReason } from './revert-reason.js';
