/**
 * Block execution: every raw transaction is decoded, checked and run with runTx on one
 * overlay over the parent state; invalid transactions are skipped with a typed reason and
 * never fail the block. The overlay becomes the block's changesets.
 */
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Bloom, createVM, encodeReceipt, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { Address } from '@ethereumjs/util';

import type { NamedChangeset } from '../store/index.js';
import { evmBlock, type BlockContext } from './block-context.js';
import { NO_BLOCK_HASHES, blockHashChain, type BlockHashLookup } from './block-hashes.js';
import { keccak256 } from '../util/keccak.js';
import { BlockGasLimitReachedError, TxExecutionFailedError, TxRejectedError } from './errors.js';
import { CoinbaseTips, TRANSFER_GAS, TransferReceipts, applyPlainTransfer, plainTransferParties, precompileSet } from './plain-transfer.js';
import { vmCommon } from './common.js';
import { gethEvmOptions } from './returndata-bounds.js';
import { OverlayStateManager, type StateView } from './state-manager.js';
import { checkTx, decodeTx, effectiveGasPrice, type DecodedTx } from './validate.js';

/** One log of a receipt. */
export interface ReceiptLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Position among all logs of the block. */
  logIndex: number;
}

/** The receipt of an executed transaction. */
export interface Receipt {
  /** 1 = success, 0 = reverted or failed. */
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  logs: readonly ReceiptLog[];
  /** The created contract, for a contract creation that succeeded. */
  contractAddress: Uint8Array | undefined;
  effectiveGasPrice: bigint;
  type: number;
  logsBloom: Uint8Array;
}

/** A transaction included in the block. */
export interface ExecutedTx {
  kind: 'executed';
  /** Position in the block's raw transaction list. */
  position: number;
  /** Index among the included transactions (the receipt's transactionIndex). */
  index: number;
  raw: Uint8Array;
  hash: Uint8Array;
  from: Uint8Array;
  to: Uint8Array | undefined;
  nonce: bigint;
  receipt: Receipt;
  /** The VM's error for a failed execution (`revert`, `out of gas`, …). */
  vmError: string | undefined;
  returnData: Uint8Array;
}

/** A transaction left out of the block, with the reason. */
export interface SkippedTx {
  kind: 'skipped';
  position: number;
  raw: Uint8Array;
  /** keccak256 of the raw bytes. */
  hash: Uint8Array;
  reason: TxRejectedError;
}

/** The outcome of one block's transactions. */
export interface BlockExecution {
  txs: Array<ExecutedTx | SkippedTx>;
  gasUsed: bigint;
  logsBloom: Uint8Array;
  /** keccak256 of the concatenated keccak256 hashes of the encoded receipts (as txRoot does for tx hashes). */
  receiptsRoot: Uint8Array;
  changesets: NamedChangeset[];
}

/** A VM over `stateManager` with the chain's rules; BLOCKHASH answers from `hashes`. */
export async function createChainVM(common: Common, stateManager: OverlayStateManager, hashes: BlockHashLookup = NO_BLOCK_HASHES): Promise<VM> {
  return createVM({ common: vmCommon(common), stateManager, blockchain: blockHashChain(hashes), evmOpts: gethEvmOptions(common) });
}

function toReceipt(result: RunTxResult, decoded: DecodedTx, cumulative: bigint, baseFee: bigint, firstLogIndex: number): Receipt {
  const logs = (result.receipt.logs ?? []).map(([address, topics, data], i) => ({
    address,
    topics,
    data,
    logIndex: firstLogIndex + i,
  }));
  const failed = result.execResult.exceptionError !== undefined;
  return {
    status: failed ? 0 : 1,
    cumulativeGasUsed: cumulative,
    gasUsed: result.totalGasSpent,
    logs,
    contractAddress: failed ? undefined : result.createdAddress?.bytes,
    effectiveGasPrice: effectiveGasPrice(decoded, baseFee),
    type: decoded.type,
    logsBloom: result.bloom.bitvector,
  };
}

/** The bloom, logs and return data of a plain transfer, shared by all of them: receipts are never changed once made. */
const EMPTY_BLOOM = new Uint8Array(256);
const NO_LOGS: readonly ReceiptLog[] = Object.freeze([]);
const NO_RETURN_DATA = new Uint8Array(0);

/** The receipt of a plain transfer (always successful, no logs). */
function transferReceipt(decoded: DecodedTx, cumulative: bigint, price: bigint): Receipt {
  return {
    status: 1,
    cumulativeGasUsed: cumulative,
    gasUsed: TRANSFER_GAS,
    logs: NO_LOGS,
    contractAddress: undefined,
    effectiveGasPrice: price,
    type: decoded.type,
    logsBloom: EMPTY_BLOOM,
  };
}

/** runTx inside a checkpoint, so a transaction the VM refuses leaves no trace. */
async function runChecked(vm: VM, state: OverlayStateManager, decoded: DecodedTx, block: Block, blockGasUsed: bigint): Promise<RunTxResult> {
  await state.checkpoint();
  try {
    const result = await runTx(vm, { tx: decoded.tx, block, blockGasUsed, skipHardForkValidation: true });
    await state.commit();
    return result;
  } catch (error) {
    await state.revert();
    throw error;
  }
}

/** Why a raw transaction failed, as a typed rejection. */
function asRejection(error: unknown): TxRejectedError {
  if (error instanceof TxRejectedError) return error;
  return new TxExecutionFailedError(error instanceof Error ? error.message : String(error));
}

/** How executeBlockTxs finds what is not in the block itself. */
export interface BlockInputs {
  /** Decodes a raw transaction; may answer from transactions decoded at admission. */
  decode?: (raw: Uint8Array) => DecodedTx;
  /** Ancestor hashes for BLOCKHASH. */
  hashes?: BlockHashLookup;
  /** Run plain transfers through the VM as well (the direct path is checked against this). */
  interpretTransfers?: boolean;
}

/** The senders and recipients of `txs`, and the coinbase. */
function touchedAccounts(txs: ReadonlyArray<DecodedTx | { error: unknown }>, coinbase: Address): Uint8Array[] {
  const out = [coinbase.bytes];
  for (const tx of txs) {
    if ('error' in tx) continue;
    out.push(tx.sender.bytes);
    const to = tx.to;
    if (to !== undefined) out.push(to.bytes);
  }
  return out;
}

/** keccak256 of the block's receipt hashes end to end, the transfers' taken from `transfers`. */
function receiptsRoot(hashes: ReadonlyArray<Uint8Array | number>, transfers: TransferReceipts): Buffer {
  const transferHashes = transfers.hashes();
  const all = Buffer.allocUnsafe(hashes.length * 32);
  hashes.forEach((hash, i) => {
    if (typeof hash === 'number') transferHashes.copy(all, i * 32, hash * 32, hash * 32 + 32);
    else all.set(hash, i * 32);
  });
  return keccak256(all);
}

/** Runs `rawTxs` in order on `view` within the block `ctx`. */
export async function executeBlockTxs(common: Common, view: StateView, ctx: BlockContext, rawTxs: readonly Uint8Array[], inputs: BlockInputs = {}): Promise<BlockExecution> {
  const decode = inputs.decode ?? ((raw: Uint8Array) => decodeTx(raw, common));
  const state = new OverlayStateManager(view);
  // Made on the first transaction that needs the interpreter: a block of plain transfers never does.
  let vm: VM | undefined;
  const block = evmBlock(common, ctx);
  const bloom = new Bloom(undefined, common);
  const precompiles = precompileSet(common);
  const tips = new CoinbaseTips(block.header.coinbase);
  const txs: Array<ExecutedTx | SkippedTx> = [];
  // Per executed tx, its receipt's hash, or for a plain transfer its index in `transferReceipts`.
  const receiptHashes: Array<Uint8Array | number> = [];
  const transferReceipts = new TransferReceipts();
  let gasUsed = 0n;
  let logCount = 0;

  // Decoded up front so the accounts the block touches first are read in one go.
  const decodedTxs = rawTxs.map((raw): DecodedTx | { error: unknown } => {
    try {
      return decode(raw);
    } catch (error) {
      return { error };
    }
  });
  state.prefetchAccounts(touchedAccounts(decodedTxs, block.header.coinbase));

  for (let position = 0; position < rawTxs.length; position++) {
    const raw = rawTxs[position]!;
    let decoded: DecodedTx | undefined;
    let outcome: RunTxResult | { transferPrice: bigint };
    try {
      const result = decodedTxs[position]!;
      if ('error' in result) throw result.error;
      decoded = result;
      if (tips.touches(decoded.sender) || tips.touches(decoded.to)) tips.credit(state);
      const sender = state.getAccountSync(decoded.sender);
      checkTx(decoded, { nonce: sender?.nonce ?? 0n, balance: sender?.balance ?? 0n }, ctx.baseFee, 'exact');
      const gasLeft = ctx.gasLimit - gasUsed;
      if (decoded.gasLimit > gasLeft) throw new BlockGasLimitReachedError(decoded.gasLimit, gasLeft);
      const parties = inputs.interpretTransfers ? undefined : plainTransferParties(decoded, sender, state, precompiles);
      if (parties) {
        outcome = { transferPrice: applyPlainTransfer(state, decoded, parties, tips, ctx.baseFee) };
      } else {
        // The VM may read the coinbase (BALANCE, or paying it): its tips must be in place.
        tips.credit(state);
        vm ??= await createChainVM(common, state, inputs.hashes);
        outcome = await runChecked(vm, state, decoded, block, gasUsed);
      }
    } catch (error) {
      txs.push({ kind: 'skipped', position, raw, hash: decoded?.hash ?? keccak256(raw), reason: asRejection(error) });
      continue;
    }
    let receipt: Receipt;
    let vmError: string | undefined;
    let returnData: Uint8Array;
    if ('transferPrice' in outcome) {
      gasUsed += TRANSFER_GAS;
      receipt = transferReceipt(decoded, gasUsed, outcome.transferPrice);
      receiptHashes.push(transferReceipts.add(decoded.type, gasUsed));
      vmError = undefined;
      returnData = NO_RETURN_DATA;
    } else {
      gasUsed += outcome.totalGasSpent;
      receipt = toReceipt(outcome, decoded, gasUsed, ctx.baseFee, logCount);
      bloom.or(outcome.bloom);
      outcome.receipt.cumulativeBlockGasUsed = gasUsed;
      receiptHashes.push(keccak256(encodeReceipt(outcome.receipt, decoded.type)));
      vmError = outcome.execResult.exceptionError?.error;
      returnData = outcome.execResult.returnValue;
    }
    logCount += receipt.logs.length;
    txs.push({
      kind: 'executed',
      position,
      index: receiptHashes.length - 1,
      raw,
      hash: decoded.hash,
      from: decoded.sender.bytes,
      to: decoded.to?.bytes,
      nonce: decoded.nonce,
      receipt,
      vmError,
      returnData,
    });
  }

  tips.credit(state);
  return {
    txs,
    gasUsed,
    logsBloom: bloom.bitvector,
    receiptsRoot: receiptsRoot(receiptHashes, transferReceipts),
    changesets: state.changesets(),
  };
}
