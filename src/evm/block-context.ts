/** The block an EVM transaction runs in: number, time, coinbase, gas limit and base fee. */
import type { Common } from '@ethereumjs/common';
import { createBlock, type Block } from '@ethereumjs/block';
import { Address } from '@ethereumjs/util';

import { keccak256 } from '../util/keccak.js';

/** The header fields execution depends on. */
export interface BlockContext {
  height: number;
  /** Block time in milliseconds since the epoch (the EVM sees whole seconds). */
  timeMs: number;
  /** The proposer's consensus address (20 bytes) or another identifier of it. */
  proposer: Uint8Array;
  baseFee: bigint;
  gasLimit: bigint;
}

/** geth's BlockOverrides: header fields debug_traceCall replaces in the block context. */
export interface BlockOverrides {
  readonly number?: bigint;
  /** Seconds since the epoch. */
  readonly time?: bigint;
  readonly gasLimit?: bigint;
  /** The coinbase (geth's `feeRecipient`). */
  readonly feeRecipient?: Uint8Array;
  /** 32 bytes; what PREVRANDAO (DIFFICULTY) reads after the merge. */
  readonly prevRandao?: Uint8Array;
  readonly baseFee?: bigint;
  readonly blobBaseFee?: bigint;
}

/** The 20-byte coinbase of a proposer: its address as is, or the last 20 bytes of keccak256 of any other identifier. */
export function coinbaseOf(proposer: Uint8Array): Uint8Array {
  return proposer.length === 20 ? proposer : keccak256(proposer).subarray(12);
}

/** An @ethereumjs block carrying `ctx` (no transactions; runTx only reads the header). */
export function evmBlock(common: Common, ctx: BlockContext): Block {
  return createBlock(
    {
      header: {
        number: BigInt(ctx.height),
        timestamp: BigInt(Math.floor(ctx.timeMs / 1000)),
        coinbase: new Address(coinbaseOf(ctx.proposer)),
        gasLimit: ctx.gasLimit,
        baseFeePerGas: ctx.baseFee,
        difficulty: 0n,
      },
    },
    { common, skipConsensusFormatValidation: true, freeze: false },
  );
}
