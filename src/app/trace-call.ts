/**
 * debug_traceCall: a message run with a tracer on the state after a block (or, with
 * `txIndex`, after that block's first transactions), in that block's context with geth's
 * block overrides, after state overrides are applied. Nothing is written anywhere.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';

import { coinbaseOf, evmBlock, type BlockContext, type BlockOverrides } from '../evm/block-context.js';
import { applyOverrides, callGas, hasFees, messageTx, type CallRequest, type StateOverrides } from '../evm/call.js';
import type { BlockHashLookup } from '../evm/block-hashes.js';
import { createChainVM } from '../evm/executor.js';
import { OverlayStateManager, type StateView } from '../evm/state-manager.js';
import { TracingFailedError, traceTransaction, type JsonValue, type Tracer } from '../trace/index.js';
import { replayLeadingTxs } from './block-replay.js';

/** Where a traced call runs. */
export interface TraceCallEnvironment {
  readonly common: Common;
  /** The state the block's transactions start from (see `leadingTxs`). */
  readonly view: StateView;
  /** The context of the block the call is traced in. */
  readonly block: BlockContext;
  /** Raw transactions run first, untraced, on `view` (the block's first `txIndex` ones). */
  readonly leadingTxs: readonly Uint8Array[];
  /** The RPC gas cap (0 = none). */
  readonly gasCap: bigint;
  /** Ancestor hashes for BLOCKHASH. */
  readonly hashes: BlockHashLookup;
}

/**
 * The block the call sees: the traced block's context with the overrides; without fees the
 * base fee reads 0, as geth runs calls that pay nothing.
 */
function callBlock(common: Common, ctx: BlockContext, overrides: BlockOverrides, withFees: boolean): Block {
  const block = createBlock(
    {
      header: {
        number: overrides.number ?? BigInt(ctx.height),
        timestamp: overrides.time ?? BigInt(Math.floor(ctx.timeMs / 1000)),
        coinbase: new Address(overrides.feeRecipient ?? coinbaseOf(ctx.proposer)),
        gasLimit: overrides.gasLimit ?? ctx.gasLimit,
        baseFeePerGas: withFees ? (overrides.baseFee ?? ctx.baseFee) : 0n,
        difficulty: 0n,
        ...(overrides.prevRandao !== undefined ? { mixHash: overrides.prevRandao } : {}),
      },
    },
    { common, skipConsensusFormatValidation: true, freeze: false },
  );
  const blobBaseFee = overrides.blobBaseFee;
  if (blobBaseFee !== undefined) {
    // The header derives the blob fee from excess blob gas, which cannot express every value;
    // BLOBBASEFEE asks the header, so the header is told the overridden fee directly.
    Object.defineProperty(block.header, 'getBlobGasPrice', { value: () => blobBaseFee });
  }
  return block;
}

/** geth's `tracing failed: insufficient funds …` wording for the VM's upfront-cost refusal. */
function gethRefusal(error: TracingFailedError, from: Address): Error {
  const funds = /The upfront cost is: (\d+) and the sender's account \(0x[0-9a-fA-F]+\) only has: (\d+)/.exec(error.message);
  if (!funds) return new TracingFailedError(error.message.replace(/^tracing failed: /, '').replace(/ \(tx type=.*$/s, ''));
  return new TracingFailedError(`insufficient funds for gas * price + value: address ${from.toString()} have ${funds[2]} want ${funds[1]}`);
}

/** Runs `request` traced by `tracer` and returns the tracer's result (a revert is a result, not an error). */
export async function traceCall(
  env: TraceCallEnvironment,
  request: CallRequest,
  stateOverrides: StateOverrides,
  blockOverrides: BlockOverrides,
  tracer: Tracer,
): Promise<JsonValue> {
  const state = new OverlayStateManager(env.view);
  const vm = await createChainVM(env.common, state, env.hashes);
  const leading = await replayLeadingTxs(vm, env.common, evmBlock(env.common, env.block), env.leadingTxs, env.leadingTxs.length);
  await applyOverrides(state, stateOverrides);
  const block = callBlock(env.common, env.block, blockOverrides, hasFees(request));
  const from = new Address(request.from ?? new Uint8Array(20));
  const nonce = state.getAccountSync(from)?.nonce ?? 0n;
  const tx = messageTx(env.common, request, from, nonce, callGas(env.gasCap, request, block.header.gasLimit));
  try {
    const options = { skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true };
    const traced = await traceTransaction(vm, tx, block, tracer, options, undefined, leading.logCount);
    return traced.result;
  } catch (error) {
    if (error instanceof TracingFailedError) throw gethRefusal(error, from);
    throw error;
  }
}
