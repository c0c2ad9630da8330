/**
 * debug_traceCall: a message run with a tracer on the state after a block (or, with
 * `txIndex`, after that block's first transactions), in that block's context with geth's
 * block overrides, after state overrides are applied. Nothing is written anywhere.
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';

import type { ExecutionContext } from '../../app/execution-context.js';
import { coinbaseOf, type BlockContext, type BlockOverrides } from '../../evm/block-context.js';
import { applyOverrides, callGas, hasFees, messageTx, type CallRequest, type StateOverrides } from '../../evm/call.js';
import type { StateView } from '../../evm/state-manager.js';
import { TracingFailedError } from '../errors.js';
import { BlockReplay } from '../replay/block-replay.js';
import { traceTransaction } from '../trace-tx.js';
import type { JsonValue, Tracer } from '../types.js';
import { checksumAddress } from '../../util/keccak.js';

/** Where a traced call runs. */
export interface TraceCallEnvironment {
  /** How the block the call is traced in executes (its own rules, header and VM). */
  readonly context: ExecutionContext;
  /** That block's header fields, which block overrides replace. */
  readonly header: BlockContext;
  /** The state the block's transactions start from (see `leadingTxs`). */
  readonly view: StateView;
  /** The block's transactions run first, untraced, on `view` (its first `txIndex` ones); none runs the call on `view`. */
  readonly leadingTxs: readonly Uint8Array[];
  /** The RPC gas cap (0 = none). */
  readonly gasCap: bigint;
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
  return new TracingFailedError(`insufficient funds for gas * price + value: address ${checksumAddress(from.bytes)} have ${funds[2]} want ${funds[1]}`);
}

/** Runs `request` traced by `tracer` and returns the tracer's result (a revert is a result, not an error). */
export async function traceCall(
  env: TraceCallEnvironment,
  request: CallRequest,
  stateOverrides: StateOverrides,
  blockOverrides: BlockOverrides,
  tracer: Tracer,
): Promise<JsonValue> {
  const replay = await BlockReplay.start(env.context, env.leadingTxs, () => env.view);
  await replay.runThrough(env.leadingTxs.length - 1);
  const state = replay.overlay();
  await applyOverrides(state, stateOverrides);
  const common = env.context.common;
  const block = callBlock(common, env.header, blockOverrides, hasFees(request));
  const from = new Address(request.from ?? new Uint8Array(20));
  const nonce = state.getAccountSync(from)?.nonce ?? 0n;
  const tx = messageTx(common, request, from, nonce, callGas(env.gasCap, request, block.header.gasLimit));
  try {
    const options = { skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true };
    const traced = await traceTransaction(replay.vm, tx, block, tracer, options, undefined, replay.logCount);
    return traced.result;
  } catch (error) {
    if (error instanceof TracingFailedError) throw gethRefusal(error, from);
    throw error;
  }
}
