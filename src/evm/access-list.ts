/**
 * eth_createAccessList as geth answers it: the message runs with an access-list tracer that
 * records every account and storage slot it touches, then runs again with that list until
 * the list no longer changes (a list changes gas, and gas can change the path taken). The
 * sender, the recipient (or the created contract) and the precompiles are left out of the
 * accounts, as they are warm anyway; slots are recorded for any account, the recipient's too.
 */
import { getActivePrecompiles, type InterpreterStep } from '@ethereumjs/evm';
import { createTx } from '@ethereumjs/tx';
import { Address, bigIntToBytes, generateAddress, setLengthLeft } from '@ethereumjs/util';
import { runTx, type RunTxResult } from '@ethereumjs/vm';

import { evmBlock } from './block-context.js';
import { CallFailedError, applyOverrides, callGas, hasFees, messageTx, refusalMessage, type CallEnvironment, type CallRequest, type StateOverrides } from './call.js';
import { keccak256 } from '../util/keccak.js';
import { checksumAddress } from '../util/keccak.js';
import { gethMessageError } from './errors.js';
import { ExecutionDeadlineError } from './execution-deadline.js';
import { withFields } from '../util/objects.js';

/** One account of an access list and the slots read or written in it. */
export interface AccessListItem {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** eth_createAccessList's answer: the list, the gas the message used with it, and its EVM error if it failed. */
export interface AccessListResult {
  accessList: AccessListItem[];
  gasUsed: bigint;
  /** geth's text of the message's failure (`execution reverted`, `out of gas`, …). */
  error?: string;
}

/** Runs after which a list still changing is returned as it stands (geth loops until stable; lists converge in two or three). */
const MAX_ROUNDS = 16;

const ADDRESS_ARG_TOP = new Set(['BALANCE', 'EXTCODESIZE', 'EXTCODECOPY', 'EXTCODEHASH', 'SELFDESTRUCT']);
const ADDRESS_ARG_SECOND = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Accounts (hex, no 0x) to the set of their slots (hex, 32 bytes), in the order first touched. */
class AccessListTracer {
  readonly list = new Map<string, Set<string>>();

  constructor(private readonly excluded: ReadonlySet<string>, seed: readonly AccessListItem[]) {
    for (const item of seed) {
      const address = hex(item.address);
      if (!excluded.has(address)) this.addAddress(address);
      for (const key of item.storageKeys) this.addSlot(address, hex(setLengthLeft(key, 32)));
    }
  }

  addAddress(address: string): void {
    if (!this.list.has(address)) this.list.set(address, new Set());
  }

  addSlot(address: string, slot: string): void {
    this.addAddress(address);
    this.list.get(address)!.add(slot);
  }

  /** The EVM's step listener. */
  readonly onStep = (step: InterpreterStep): void => {
    const stack = step.stack;
    const name = step.opcode.name;
    if ((name === 'SLOAD' || name === 'SSTORE') && stack.length >= 1) {
      this.addSlot(hex(step.address.bytes), hex(setLengthLeft(bigIntToBytes(stack[stack.length - 1]!), 32)));
      return;
    }
    const arg = ADDRESS_ARG_TOP.has(name) ? stack[stack.length - 1] : ADDRESS_ARG_SECOND.has(name) ? stack[stack.length - 2] : undefined;
    if (arg === undefined) return;
    const address = (arg & ((1n << 160n) - 1n)).toString(16).padStart(40, '0');
    if (!this.excluded.has(address)) this.addAddress(address);
  };

  items(): AccessListItem[] {
    return [...this.list].map(([address, slots]) => ({
      address: Buffer.from(address, 'hex'),
      storageKeys: [...slots].map((slot) => Buffer.from(slot, 'hex')),
    }));
  }

  equals(other: AccessListTracer): boolean {
    if (this.list.size !== other.list.size) return false;
    for (const [address, slots] of this.list) {
      const theirs = other.list.get(address);
      if (theirs === undefined || theirs.size !== slots.size) return false;
      for (const slot of slots) if (!theirs.has(slot)) return false;
    }
    return true;
  }
}

/** geth's hash of the message as an unsigned legacy transaction, which its error names. */
function messageHash(env: CallEnvironment, request: CallRequest, nonce: bigint, gas: bigint): string {
  const tx = createTx(
    { type: 0, nonce, gasLimit: gas, gasPrice: request.gasPrice ?? request.maxFeePerGas ?? 0n, to: request.to === undefined ? undefined : new Address(request.to), value: request.value ?? 0n, data: request.data ?? new Uint8Array() },
    { common: env.common },
  );
  return `0x${hex(keccak256(tx.serialize()))}`;
}

/** One run of the message with `list` as its access list, traced. */
async function traceRound(env: CallEnvironment, request: CallRequest, overrides: StateOverrides, gas: bigint, list: readonly AccessListItem[]): Promise<{ tracer: AccessListTracer; result: RunTxResult }> {
  return env.vms.run(env.view, async ({ vm, state }) => {
    await applyOverrides(state, overrides);
    const from = new Address(request.from ?? new Uint8Array(20));
    const nonce = state.getAccountSync(from)?.nonce ?? 0n;
    const to = request.to ?? generateAddress(from.bytes, bigIntToBytes(nonce));
    const excluded = new Set([hex(from.bytes), hex(to), ...[...getActivePrecompiles(env.common).keys()].map((k) => k.replace(/^0x/, '').padStart(40, '0'))]);
    const tracer = new AccessListTracer(excluded, list);
    const block = evmBlock(env.common, hasFees(request) ? env.block : withFields(env.block, { baseFee: 0n }));
    const tx = messageTx(env.common, withFields(request, { accessList: list.map((i) => ({ address: i.address, storageKeys: i.storageKeys })) }), from, nonce, gas);
    // geth checks the balance against the fee cap (buyGas); @ethereumjs first against the effective price.
    const have = state.getAccountSync(from)?.balance ?? 0n;
    const want = gas * (request.maxFeePerGas ?? request.gasPrice ?? 0n) + (request.value ?? 0n);
    if (have < want) {
      throw new CallFailedError(`failed to apply transaction: ${messageHash(env, request, nonce, gas)} err: insufficient funds for gas * price + value: address ${checksumAddress(from.bytes)} have ${have} want ${want}`);
    }
    vm.evm.events!.on('step', tracer.onStep);
    try {
      const result = await runTx(vm, { tx, block, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
      return { tracer, result };
    } catch (error) {
      if (error instanceof ExecutionDeadlineError) throw error;
      throw new CallFailedError(`failed to apply transaction: ${messageHash(env, request, nonce, gas)} err: ${refusalMessage(error, from, request)}`);
    } finally {
      vm.evm.events!.off('step', tracer.onStep);
    }
  }, env.deadlineAt);
}

/** eth_createAccessList: the list the message touches, run until stable; a refused message throws CallFailedError. */
export async function createAccessList(env: CallEnvironment, request: CallRequest, overrides: StateOverrides = []): Promise<AccessListResult> {
  const gas = callGas(env.gasCap, request, env.block.gasLimit);
  let list: AccessListItem[] = request.accessList?.map((i) => ({ address: i.address, storageKeys: [...i.storageKeys] })) ?? [];
  let previous: AccessListTracer | undefined;
  for (let round = 0; ; round++) {
    const { tracer, result } = await traceRound(env, request, overrides, gas, list);
    const stable = previous !== undefined && tracer.equals(previous);
    if (stable || round + 1 >= MAX_ROUNDS) {
      const error = gethMessageError(result.execResult, request.to, request.data ?? new Uint8Array());
      return { accessList: list, gasUsed: result.totalGasSpent, ...(error === undefined ? {} : { error }) };
    }
    previous = tracer;
    list = tracer.items();
  }
}
