/**
 * What re-executing a stored block needs, whoever produced it: the chain rules at that block,
 * the header the EVM sees, how its raw transactions decode and a VM over its parent's state.
 * The node's own blocks and imported Ethereum blocks each provide one.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { VM } from '@ethereumjs/vm';

import { evmBlock, type BlockContext } from '../evm/block-context.js';
import type { BlockHashLookup } from '../evm/block-hashes.js';
import { createChainVM } from '../evm/executor.js';
import { OverlayStateManager, type StateView } from '../evm/state-manager.js';
import { decodeTx } from '../evm/validate.js';

/** A raw transaction decoded for execution. */
export interface ContextTx {
  tx: TypedTransaction;
  hash: Uint8Array;
}

/** How to re-execute one stored block. */
export interface ExecutionContext {
  readonly height: number;
  /** The hash the chain serves the block under. */
  readonly blockHash: Uint8Array;
  /** The rules the block executes with. */
  readonly common: Common;
  /** The header runTx reads (number, time, coinbase, gas limit, fees, randomness). */
  readonly block: Block;
  /**
   * The parent's state when the versioned stores cannot serve it: the genesis state of an
   * imported chain (version 0 is reserved in the SS).
   */
  readonly parentState?: StateView;
  /** Decodes one of the block's raw transactions. */
  decodeTx(raw: Uint8Array): ContextTx;
  /** A VM over `parent`, with the block's pre-transaction system writes already made. */
  createVM(parent: StateView): Promise<VM>;
}

/** The context of a block this chain produced: the chain's own rules and BlockContext. */
export function ownExecutionContext(common: Common, header: BlockContext, blockHash: Uint8Array, hashes: BlockHashLookup): ExecutionContext {
  return {
    height: header.height,
    blockHash,
    common,
    block: evmBlock(common, header),
    decodeTx: (raw) => decodeTx(raw, common),
    createVM: (parent) => createChainVM(common, new OverlayStateManager(parent), hashes),
  };
}
