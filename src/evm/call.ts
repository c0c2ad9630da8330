/**
 * eth_call and eth_estimateGas: a message run as a transaction from an unsigned sender on an
 * overlay (nothing is written), with state overrides, geth's revert reporting and geth's
 * binary search for the gas estimate.
 */
import type { Common } from '@ethereumjs/common';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address, MAX_INTEGER, MAX_UINT64 } from '@ethereumjs/util';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { Block } from '@ethereumjs/block';
import { LRUCache } from 'lru-cache';

import { evmBlock, type BlockContext } from './block-context.js';
import { gethMessageError } from './errors.js';
import { ExecutionDeadlineError } from './execution-deadline.js';
import { revertReason } from './revert-reason.js';
import { OverlayStateManager, type StateView } from './state-manager.js';
import type { VmPool } from './vm-pool.js';
import { checksumAddress } from '../util/keccak.js';
import { withFields } from '../util/objects.js';

/** The call object of eth_call / eth_estimateGas. */
export interface CallRequest {
  from?: Uint8Array;
  /** Undefined for a contract creation. */
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  accessList?: Array<{ address: Uint8Array; storageKeys: Uint8Array[] }>;
}

/** One account's override: `state` replaces all storage, `stateDiff` changes some slots. */
export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  state?: Array<{ slot: Uint8Array; value: Uint8Array }>;
  stateDiff?: Array<{ slot: Uint8Array; value: Uint8Array }>;
}

/** Overrides per account (the address is the 20-byte key). */
export type StateOverrides = Array<{ address: Uint8Array; override: AccountOverride }>;

/**
 * Where a call runs: chain rules, the VMs to run on, the state to read, the block, and the
 * RPC gas cap (0 = none).
 */
export interface CallEnvironment {
  common: Common;
  vms: VmPool;
  view: StateView;
  block: BlockContext;
  gasCap: bigint;
  /** Date.now() time at which the call's EVM runs stop with ExecutionDeadlineError; unbounded when absent. */
  deadlineAt?: number;
}

/** A successful call. */
export interface CallResult {
  returnData: Uint8Array;
  /** Gas the message used as a transaction (intrinsic gas and refunds included). */
  gasUsed: bigint;
}

/** Base of call errors; `rpcCode` is geth's JSON-RPC error code. */
export class CallError extends Error {
  constructor(message: string, readonly rpcCode: number) {
    super(message);
    this.name = new.target.name;
  }
}

/** The call reverted: geth's code 3, `execution reverted[: reason]`, with the revert data. */
export class CallRevertedError extends CallError {
  constructor(readonly data: Uint8Array, readonly reason: string | undefined) {
    super(reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, 3);
  }
}

/** The call failed in the EVM (out of gas, invalid opcode, …) or before it (funds, fees, gas). */
export class CallFailedError extends CallError {
  constructor(message: string) {
    super(message, -32000);
  }
}

/** The call outran the node's `rpc-evm-timeout`: geth's `execution aborted (timeout = 5s)`. */
export class CallTimeoutError extends CallFailedError {
  constructor(readonly timeout: string) {
    super(`execution aborted (timeout = ${timeout})`);
  }
}

const CALL_STIPEND = 2300n;
const TX_GAS = 21_000n;
const ESTIMATE_ERROR_RATIO = 0.015;


/** A state override that cannot be applied (geth's wording). */
export class StateOverrideError extends CallFailedError {}

/** Applies overrides to a fresh overlay; `state` hides every stored slot of the account. */
export async function applyOverrides(state: OverlayStateManager, overrides: StateOverrides): Promise<void> {
  for (const { address: raw, override } of overrides) {
    const address = new Address(raw);
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw new StateOverrideError(`account ${address.toString()} has both 'state' and 'stateDiff'`);
    }
    if (override.code !== undefined) await state.putCode(address, override.code);
    if (override.balance !== undefined || override.nonce !== undefined) {
      await state.modifyAccountFields(address, { balance: override.balance, nonce: override.nonce });
    }
    if (override.state !== undefined) await state.clearStorage(address);
    for (const { slot, value } of override.state ?? override.stateDiff ?? []) {
      await state.putStorage(address, pad32(slot), value);
    }
  }
}

function pad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes;
  if (bytes.length > 32) throw new StateOverrideError('storage slot longer than 32 bytes');
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

/** Whether the call offers to pay for gas (without fees geth runs it at base fee 0). */
export function hasFees(request: CallRequest): boolean {
  return (request.gasPrice ?? 0n) > 0n || (request.maxFeePerGas ?? 0n) > 0n || (request.maxPriorityFeePerGas ?? 0n) > 0n;
}

/** The gas a call gets: the request's, capped; without one, the cap (or the block gas limit). */
export function callGas(gasCap: bigint, request: CallRequest, blockGasLimit: bigint): bigint {
  const requested = request.gas ?? (gasCap > 0n ? gasCap : blockGasLimit);
  return gasCap > 0n && requested > gasCap ? gasCap : requested;
}

/** `gas` limited to the RPC gas cap. */
function capGas(env: CallEnvironment, gas: bigint): bigint {
  return env.gasCap > 0n && gas > env.gasCap ? env.gasCap : gas;
}

/**
 * A validated fee-less EIP-1559 message per chain rules, and the most gas a message built
 * from it may carry (below 2^64, and EIP-7825's cap where that is active).
 */
interface MessageTemplate {
  tx: TypedTransaction;
  maxGas: bigint;
}
/**
 * Templates per chain rules, with the hardfork each was made under (a Common can be moved to
 * another); null for rules without EIP-1559 (an imported chain's older forks).
 */
const messageTemplates = new WeakMap<Common, { hardfork: string; template: MessageTemplate | null }>();

function messageTemplate(common: Common): MessageTemplate | null {
  const hardfork = common.hardfork();
  const known = messageTemplates.get(common);
  if (known !== undefined && known.hardfork === hardfork) return known.template;
  let template: MessageTemplate | null = null;
  if (common.isActivatedEIP(1559)) {
    const tx = createTx({ type: 2, to: new Address(new Uint8Array(20)), maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, accessList: [] }, { common, freeze: false });
    const capped = tx.common.isActivatedEIP(7825) && !tx.common.isActivatedEIP(8037);
    template = { tx, maxGas: capped ? BigInt(tx.common.param('maxTransactionGasLimit')) : MAX_UINT64 };
  }
  messageTemplates.set(common, { hardfork, template });
  return template;
}

/** Whether the request is a fee-less call to an address without an access list. */
function isPlainCall(request: CallRequest): boolean {
  return (
    request.to !== undefined &&
    request.gasPrice === undefined &&
    request.maxFeePerGas === undefined &&
    request.maxPriorityFeePerGas === undefined &&
    (request.accessList === undefined || request.accessList.length === 0)
  );
}

/** Whether the fields a message takes from the call pass the transaction's own range checks (@ethereumjs's bounds). */
function inRange(nonce: bigint, gas: bigint, value: bigint, maxGas: bigint): boolean {
  return gas >= 0n && gas <= maxGas && nonce >= 0n && nonce < MAX_UINT64 && value >= 0n && value <= MAX_INTEGER;
}

/**
 * The request as an unsigned transaction whose sender is `from` (type 1 with gasPrice, else
 * type 2). A plain fee-less call (most eth_calls) is the chain's template message with its own
 * fields laid over it: building and validating a transaction costs about as much as a short
 * call, and the template already passed the checks that do not depend on those fields.
 */
export function messageTx(common: Common, request: CallRequest, from: Address, nonce: bigint, gas: bigint): TypedTransaction {
  const value = request.value ?? 0n;
  const template = isPlainCall(request) ? messageTemplate(common) : null;
  if (template !== null && inRange(nonce, gas, value, template.maxGas)) {
    const tx = Object.create(template.tx) as TypedTransaction;
    // Own fields hide the template's; `cache` holds values derived from them (the data fee).
    Object.assign(tx, {
      nonce,
      gasLimit: gas,
      to: new Address(request.to!),
      value,
      data: request.data ?? new Uint8Array(),
      cache: {},
      getSenderAddress: () => from,
    });
    return tx;
  }
  const base = {
    nonce,
    gasLimit: gas,
    to: request.to === undefined ? undefined : new Address(request.to),
    value,
    data: request.data ?? new Uint8Array(),
  };
  const accessList = (request.accessList ?? []).map((e) => ({
    address: `0x${Buffer.from(e.address).toString('hex')}` as `0x${string}`,
    storageKeys: e.storageKeys.map((k) => `0x${Buffer.from(pad32(k)).toString('hex')}` as `0x${string}`),
  }));
  const tx =
    request.gasPrice !== undefined
      ? createTx(withFields(base, { type: 1, gasPrice: request.gasPrice, accessList }), { common, freeze: false })
      : createTx(
          withFields(base, {
            type: 2,
            maxFeePerGas: request.maxFeePerGas ?? request.maxPriorityFeePerGas ?? 0n,
            maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
            accessList,
          }),
          { common, freeze: false },
        );
  // The VM asks the transaction for its sender; a call has no signature, so it is told.
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from });
  return tx;
}

/** The outcome of running the message once with `gas`. */
type Attempt =
  | { kind: 'ok'; result: RunTxResult }
  | { kind: 'reverted'; result: RunTxResult }
  | { kind: 'vm-error'; result: RunTxResult; error: string }
  | { kind: 'refused'; error: string };

/** Geth's wording for the VM's refusals of a message. */
export function refusalMessage(error: unknown, from: Address, request: CallRequest): string {
  const text = error instanceof Error ? error.message : String(error);
  const intrinsic = /INTRINSIC_GAS_TOO_LOW: tx gas limit (\d+) is lower than the minimum gas limit of (\d+)/.exec(text);
  if (intrinsic) return `intrinsic gas too low: have ${intrinsic[1]}, want ${intrinsic[2]}`;
  const funds = /sender doesn't have enough funds to send tx\. The upfront cost is: (\d+) and the sender's account \(0x[0-9a-fA-F]+\) only has: (\d+)/.exec(text);
  if (funds) return `insufficient funds for gas * price + value: address ${checksumAddress(from.bytes)} have ${funds[2]} want ${funds[1]}`;
  if (/is less than the block's baseFeePerGas/.test(text)) {
    return `max fee per gas less than block base fee: address ${checksumAddress(from.bytes)}, maxFeePerGas: ${request.maxFeePerGas ?? request.gasPrice ?? 0n}`;
  }
  return text.replace(/ \(tx type=.*$/s, '');
}

/** Call blocks kept per chain rules: calls at one height share one block (runTx only reads it). */
const CALL_BLOCKS = 32;
const callBlocks = new WeakMap<Common, LRUCache<string, Block>>();

/**
 * The @ethereumjs block a call runs in, made once per distinct context: building a block
 * header (validation, field conversion) costs about as much as a short call.
 */
function callBlock(common: Common, ctx: BlockContext): Block {
  let blocks = callBlocks.get(common);
  if (blocks === undefined) callBlocks.set(common, (blocks = new LRUCache({ max: CALL_BLOCKS })));
  // The block sees whole seconds, so calls within one second share it.
  const key = `${ctx.height}:${Math.floor(ctx.timeMs / 1000)}:${ctx.baseFee}:${ctx.gasLimit}:${Buffer.from(ctx.proposer.buffer, ctx.proposer.byteOffset, ctx.proposer.byteLength).toString('hex')}`;
  let block = blocks.get(key);
  if (block === undefined) blocks.set(key, (block = evmBlock(common, ctx)));
  return block;
}

/** Runs the message once with `gas` on a pooled VM over a clean overlay of the environment's state. */
function attempt(env: CallEnvironment, request: CallRequest, overrides: StateOverrides, gas: bigint): Promise<Attempt> {
  return env.vms.run(env.view, ({ vm, state }) => attemptOn(vm, state, env, request, overrides, gas), env.deadlineAt);
}

async function attemptOn(vm: VM, state: OverlayStateManager, env: CallEnvironment, request: CallRequest, overrides: StateOverrides, gas: bigint): Promise<Attempt> {
  await applyOverrides(state, overrides);
  const from = new Address(request.from ?? new Uint8Array(20));
  const nonce = state.getAccountSync(from)?.nonce ?? 0n;
  // Without fees a call pays nothing, so the base fee check is left out, as geth does.
  const block = callBlock(env.common, hasFees(request) ? env.block : withFields(env.block, { baseFee: 0n }));
  const tx = messageTx(env.common, request, from, nonce, gas);
  let result: RunTxResult;
  try {
    result = await runTx(vm, { tx, block, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
  } catch (error) {
    if (error instanceof ExecutionDeadlineError) throw error;
    return { kind: 'refused', error: refusalMessage(error, from, request) };
  }
  const failure = result.execResult.exceptionError?.error;
  if (failure === undefined) return { kind: 'ok', result };
  const error = gethMessageError(result.execResult, request.to, request.data ?? new Uint8Array()) ?? failure;
  // A precompile's own failure arrives as a revert from @ethereumjs; geth's wording tells them apart.
  if (error === 'execution reverted') return { kind: 'reverted', result };
  return { kind: 'vm-error', result, error };
}

function revertError(result: RunTxResult): CallRevertedError {
  const data = result.execResult.returnValue;
  return new CallRevertedError(data, revertReason(data));
}

/** eth_call: the return data of the message, or a typed error (revert → code 3 with data). */
export async function ethCall(env: CallEnvironment, request: CallRequest, overrides: StateOverrides = []): Promise<CallResult> {
  const gas = callGas(env.gasCap, request, env.block.gasLimit);
  const outcome = await attempt(env, request, overrides, gas);
  switch (outcome.kind) {
    case 'ok':
      return { returnData: outcome.result.execResult.returnValue, gasUsed: outcome.result.totalGasSpent };
    case 'reverted':
      throw revertError(outcome.result);
    case 'vm-error':
      throw new CallFailedError(outcome.error);
    case 'refused':
      throw new CallFailedError(outcome.error);
  }
}

/** The highest gas the sender can pay for at the request's fee cap (geth's allowance). */
function allowance(env: CallEnvironment, request: CallRequest, overrides: StateOverrides): bigint | undefined {
  const feeCap = request.gasPrice ?? request.maxFeePerGas ?? 0n;
  if (feeCap === 0n) return undefined;
  const from = request.from ?? new Uint8Array(20);
  const override = overrides.find((o) => Buffer.compare(o.address, from) === 0)?.override.balance;
  const balance = override ?? new OverlayStateManager(env.view).getAccountSync(new Address(from))?.balance ?? 0n;
  const value = request.value ?? 0n;
  if (value > balance) throw new CallFailedError('insufficient funds for transfer');
  return (balance - value) / feeCap;
}

async function hasCode(env: CallEnvironment, address: Uint8Array, overrides: StateOverrides): Promise<boolean> {
  const state = new OverlayStateManager(env.view);
  await applyOverrides(state, overrides);
  return (await state.getCodeSize(new Address(address))) > 0;
}

/**
 * eth_estimateGas: the least gas (within geth's 1.5% error ratio) at which the message
 * succeeds, found by binary search between the gas it used and the allowed maximum.
 */
export async function estimateGas(env: CallEnvironment, request: CallRequest, overrides: StateOverrides = []): Promise<bigint> {
  let hi = request.gas !== undefined && request.gas >= 21_000n ? request.gas : env.block.gasLimit;
  const funds = allowance(env, request, overrides);
  if (funds !== undefined && hi > funds) hi = funds;
  hi = capGas(env, hi);

  // A plain transfer to an account without code needs exactly the base transaction gas.
  if (request.to !== undefined && (request.data?.length ?? 0) === 0 && !(await hasCode(env, request.to, overrides))) {
    if (hi >= TX_GAS && (await attempt(env, request, overrides, TX_GAS)).kind === 'ok') return TX_GAS;
  }
  const first = await attempt(env, request, overrides, hi);
  if (first.kind === 'reverted') throw revertError(first.result);
  if (first.kind === 'refused') throw new CallFailedError(first.error);
  if (first.kind === 'vm-error') throw new CallFailedError(`gas required exceeds allowance (${hi})`);

  const used = first.result.totalGasSpent;
  let lo = used - 1n;
  const optimistic = ((used + first.result.gasRefund + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    if ((await attempt(env, request, overrides, optimistic)).kind === 'ok') hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    if ((await attempt(env, request, overrides, mid)).kind === 'ok') hi = mid;
    else lo = mid;
  }
  return hi;
}
