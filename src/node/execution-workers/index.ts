/** The node's execution workers: eth_call, eth_estimateGas and debug_trace* off the block-producing thread. */
export { WorkerPool, type WorkerPoolOptions, type Deadline } from './pool.js';
export { WorkerCallExecutor } from './call-executor.js';
export { WorkerDebugBackend } from './debug-backend.js';
export type { WorkerHeap, WorkerSetup } from './protocol.js';
