/**
 * eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 on the execution workers: the App's CallExecutor on a running
 * node. Each call has `rpc-evm-timeout`, waiting for a worker included, as geth's calls do.
 */
import type { CallExecutor } from '../../app/index.js';
import type { AccessListResult } from '../../evm/access-list.js';
import type { BlockContext } from '../../evm/block-context.js';
import type { SimulatePayload, SimulatedBlock, SimulationBase } from '../../evm/simulate.js';
import { CallTimeoutError, type CallRequest, type CallResult, type StateOverrides } from '../../evm/call.js';
import { ExecutionBusyError } from '../../evm/errors.js';
import { PoolFullError, type Deadline, type WorkerPool } from './pool.js';

/** CallExecutor over a worker pool. */
export class WorkerCallExecutor implements CallExecutor {
  readonly #deadline: Deadline;

  /** Calls on `pool`, each within `timeoutMs` (`timeoutText` as app.toml wrote it, for the error). */
  constructor(
    private readonly pool: WorkerPool,
    timeoutMs: number,
    timeoutText: string,
  ) {
    this.#deadline = { ms: timeoutMs, error: () => new CallTimeoutError(timeoutText) };
  }

  call(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<CallResult> {
    return this.#run({ kind: 'call', height, block, request, overrides }) as Promise<CallResult>;
  }

  estimateGas(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<bigint> {
    return this.#run({ kind: 'estimateGas', height, block, request, overrides }) as Promise<bigint>;
  }

  createAccessList(height: number, block: BlockContext, request: CallRequest, overrides: StateOverrides): Promise<AccessListResult> {
    return this.#run({ kind: 'createAccessList', height, block, request, overrides }) as Promise<AccessListResult>;
  }

  simulate(height: number, block: BlockContext, base: SimulationBase, payload: SimulatePayload): Promise<SimulatedBlock[]> {
    return this.#run({ kind: 'simulate', height, block, base, payload }) as Promise<SimulatedBlock[]>;
  }

  async #run(body: Parameters<WorkerPool['run']>[0]): Promise<unknown> {
    try {
      return await this.pool.run(body, this.#deadline);
    } catch (error) {
      if (error instanceof PoolFullError) throw new ExecutionBusyError(error.queued);
      throw error;
    }
  }
}
