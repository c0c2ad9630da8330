/** Runs one transaction on an @ethereumjs VM with a tracer attached and returns the tracer's result. */
import type { Block } from '@ethereumjs/block';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { Hardfork } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { eoaCode7702RecoverAuthority, generateAddress, type EOACode7702AuthorizationListBytesItem } from '@ethereumjs/util';
import { runTx, type RunTxOpts, type RunTxResult, type VM } from '@ethereumjs/vm';

import { TracingFailedError } from './errors.js';
import { EvmTraceBridge } from './evm-bridge.js';
import { bytesHex, minimalBytes } from './hex.js';
import { stateReaderOf } from './state-reader.js';
import type { Hex, JsonValue, TraceRules, Tracer, TxStart } from './types.js';
import { withFields } from '../util/objects.js';

/** Where the transaction sits in a mined block (omit for a call). */
export interface TracedTxPlace {
  blockHash: Hex;
  txIndex: number;
  txHash: Hex;
}

/** A traced run: the tracer's output and the VM's own result. */
export interface TracedTx {
  result: JsonValue;
  run: RunTxResult;
}

/** The chain rules tracers need at the VM's fork. */
export function traceRules(vm: VM): TraceRules {
  const precompiles = new Set([...getActivePrecompiles(vm.common).keys()].map((key) => `0x${key.replace(/^0x/, '').toLowerCase()}`));
  return {
    isPrecompile: (address) => precompiles.has(address.toLowerCase()),
    prague: vm.common.gteHardfork(Hardfork.Prague),
  };
}

/** What the sender pays per gas in `block` (geth's effective gas price). */
function effectiveGasPrice(tx: TypedTransaction, block: Block): bigint {
  if ('gasPrice' in tx) return tx.gasPrice;
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const tipped = baseFee + tx.maxPriorityFeePerGas;
  return tipped < tx.maxFeePerGas ? tipped : tx.maxFeePerGas;
}

/** EIP-7702 authorities of `tx` whose signatures recover (others are skipped, as geth does). */
function authoritiesOf(tx: TypedTransaction): Hex[] {
  const list = (tx as { authorizationList?: EOACode7702AuthorizationListBytesItem[] }).authorizationList ?? [];
  const out: Hex[] = [];
  for (const item of list) {
    try {
      out.push(eoaCode7702RecoverAuthority(item).toString() as Hex);
    } catch {
      // An unrecoverable authorisation is ignored by the VM too.
    }
  }
  return out;
}

/**
 * Runs `tx` in `block` on `vm` with `tracer` attached (the state changes stay in the VM's
 * state manager). `runOptions` are passed to runTx; `place` fills the block position
 * tracers such as flatCallTracer print; `firstLogIndex` counts the logs of the block's
 * transactions before this one.
 */
export async function traceTransaction(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  tracer: Tracer,
  runOptions: Omit<RunTxOpts, 'tx' | 'block'> = {},
  place?: TracedTxPlace,
  firstLogIndex = 0,
): Promise<TracedTx> {
  const state = stateReaderOf(vm.stateManager);
  const from = tx.getSenderAddress();
  const start: TxStart = {
    from: from.toString() as Hex,
    to: tx.to?.toString() as Hex | undefined,
    createdAddress: tx.to === undefined ? bytesHex(generateAddress(from.bytes, minimalBytes(tx.nonce))) : undefined,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    gasPrice: effectiveGasPrice(tx, block),
    value: tx.value,
    input: tx.data,
    coinbase: block.header.coinbase.toString() as Hex,
    authorities: authoritiesOf(tx),
    block: { number: block.header.number, hash: place?.blockHash, txIndex: place?.txIndex, txHash: place?.txHash },
    rules: traceRules(vm),
    state,
  };
  await tracer.onTxStart?.(start);
  if (vm.evm.events === undefined) throw new TracingFailedError('the VM has no EVM event emitter');
  const bridge = new EvmTraceBridge(vm.evm as ConstructorParameters<typeof EvmTraceBridge>[0], tracer, state, firstLogIndex);
  bridge.attach();
  let run: RunTxResult;
  try {
    run = await runTx(vm, withFields(runOptions, { tx, block }));
  } catch (error) {
    bridge.detach();
    throw new TracingFailedError(error instanceof Error ? error.message : String(error));
  }
  bridge.detach();
  await tracer.onTxEnd?.({ gasUsed: run.totalGasSpent, state });
  return { result: tracer.result(), run };
}
