/** The node's execution workers: eth_call and eth_estimateGas off the block-producing thread. */
export { ExecutionWorkers, type ExecutionWorkersOptions } from './pool.js';
export type { WorkerSetup } from './protocol.js';
