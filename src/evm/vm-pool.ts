/**
 * Reusable VMs for calls. Building an @ethereumjs VM (opcode tables, precompiles, journal)
 * costs more than running a typical eth_call, so each pooled VM keeps its own resettable
 * state manager and is rebound to the view a call reads.
 */
import type { Common } from '@ethereumjs/common';
import type { VM } from '@ethereumjs/vm';

import { NO_BLOCK_HASHES, type BlockHashLookup } from './block-hashes.js';
import type { CodeCache } from './code-cache.js';
import './jump-analysis-cache.js';
import { createChainVM } from './executor.js';
import { setExecutionDeadline } from './execution-deadline.js';
import { OverlayStateManager, type StateView } from './state-manager.js';

/** A VM with the state manager it runs on. */
export interface PooledVm {
  vm: VM;
  state: OverlayStateManager;
}

/** Idle VMs of one chain; a VM is lent to one call at a time. */
export class VmPool {
  readonly #idle: PooledVm[] = [];

  /** A pool for `common` (BLOCKHASH from `hashes`), keeping at most `maxIdle` VMs between calls. */
  constructor(
    private readonly common: Common,
    private readonly codes: CodeCache | undefined,
    private readonly hashes: BlockHashLookup = NO_BLOCK_HASHES,
    private readonly maxIdle = 16,
  ) {}

  /**
   * Runs `use` with a VM whose state reads `view` and holds no earlier writes, its EVM runs
   * stopped at `deadlineAt` (a Date.now() time; see execution-deadline.ts). A VM whose run
   * threw is dropped rather than reused, since its journal may be mid-transaction.
   */
  async run<T>(view: StateView, use: (pooled: PooledVm) => Promise<T>, deadlineAt = Infinity): Promise<T> {
    let pooled = this.#idle.pop();
    if (pooled === undefined) {
      const state = new OverlayStateManager(view, this.codes);
      pooled = { vm: await createChainVM(this.common, state, this.hashes), state };
    } else {
      pooled.state.reset(view);
    }
    setExecutionDeadline(pooled.vm.evm, deadlineAt);
    const result = await use(pooled);
    setExecutionDeadline(pooled.vm.evm, Infinity);
    if (this.#idle.length < this.maxIdle) this.#idle.push(pooled);
    return result;
  }
}
