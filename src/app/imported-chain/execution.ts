/**
 * Executing and re-executing imported Ethereum blocks with their own context: the header's
 * coinbase, time, difficulty or prevRandao, base fee, gas limit, parent beacon root and the
 * ancestors' hashes for BLOCKHASH, under the chain's rules at that block (PoW rewards with
 * uncles, EIP-4788 / EIP-2935 system writes, withdrawals, EIP-7685 requests). State roots are
 * not compared (the node's commitment differs); gas used, the logs bloom, the receipts root
 * (from Byzantium, when receipts carry a status instead of a state root) and the requests hash
 * are, and a mismatch fails the block.
 */
import { Block, createBlockFromBytesArray, createBlockHeaderFromBytesArray, type BlockBytes, type BlockHeaderBytes } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { Capability, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { createVM, runBlock, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';

import type { StateView } from '../../evm/state-manager.js';
import { blockHashChain } from '../../evm/block-hashes.js';
import { vmCommon } from '../../evm/common.js';
import { gethEvmOptions } from '../../evm/returndata-bounds.js';
import type { NamedChangeset } from '../../store/index.js';
import { ImportedChainConfig } from './chain-config.js';
import { ImportedBlockError } from './errors.js';
import { ImportedStateManager } from './state-manager.js';
import type { ExecutionContext } from '../execution-context.js';
import { bytesHex } from '../../util/hex.js';

/** The hash of the imported block at `number` (BLOCKHASH); undefined when unknown. */
export type AncestorHashes = (number: bigint) => Uint8Array | undefined;

/** One executed transaction of an imported block. */
export interface ImportedTxOutcome {
  /** The transaction as the block carries it (type ‖ payload, or the legacy RLP list). */
  raw: Uint8Array;
  hash: Uint8Array;
  type: number;
  from: Uint8Array;
  to: Uint8Array | undefined;
  /** The created contract of a successful creation. */
  contractAddress: Uint8Array | undefined;
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  logs: Array<{ address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }>;
}

/** An imported block after execution. */
export interface ImportedBlockOutcome {
  block: Block;
  /** The block's Ethereum hash. */
  hash: Uint8Array;
  txs: ImportedTxOutcome[];
  changesets: NamedChangeset[];
}

/** The EIP-4788 beacon-roots contract. */
const BEACON_ROOTS_ADDRESS = new Address(Buffer.from('000f3df6d732807ef1319fb7b8bb8522d0beac02', 'hex'));

/** BLOCKHASH over the imported ancestors, every one of which is known. */
function ancestry(hashOf: AncestorHashes): EVMMockBlockchainInterface {
  return blockHashChain((height) => hashOf(BigInt(height)), true);
}

/**
 * The state writes a block makes before its first transaction: the parent beacon root
 * (EIP-4788) and the parent hash (EIP-2935), each only when its contract has code.
 */
async function systemWrites(vm: VM, block: Block): Promise<void> {
  const { header } = block;
  const state = vm.stateManager;
  if (vm.common.isActivatedEIP(4788) && header.parentBeaconBlockRoot !== undefined) {
    if ((await state.getCode(BEACON_ROOTS_ADDRESS)).length > 0) {
      const ring = BigInt(vm.common.param('historicalRootsLength'));
      const slot = header.timestamp % ring;
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(header.timestamp));
      await state.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(slot + ring), 32), header.parentBeaconBlockRoot);
    }
  }
  if (vm.common.isActivatedEIP(2935) && header.number > 0n) {
    const history = new Address(setLengthLeft(bigIntToBytes(vm.common.param('historyStorageAddress')), 20));
    if ((await state.getCode(history)).length > 0) {
      const slot = (header.number - 1n) % vm.common.param('historyServeWindow');
      await state.putStorage(history, setLengthLeft(bigIntToBytes(slot), 32), header.parentHash);
    }
  }
}

function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (!tx.supports(Capability.EIP1559FeeMarket)) return (tx as unknown as { gasPrice: bigint }).gasPrice;
  const { maxFeePerGas, maxPriorityFeePerGas } = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  const tipped = (baseFee ?? 0n) + maxPriorityFeePerGas;
  return tipped < maxFeePerGas ? tipped : maxFeePerGas;
}

function outcomeOf(tx: TypedTransaction, result: RunTxResult, cumulativeGasUsed: bigint, baseFee: bigint | undefined): ImportedTxOutcome {
  const failed = result.execResult.exceptionError !== undefined;
  return {
    raw: tx.serialize(),
    hash: tx.hash(),
    type: tx.type,
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes,
    contractAddress: failed ? undefined : result.createdAddress?.bytes,
    status: failed ? 0 : 1,
    gasUsed: result.totalGasSpent,
    cumulativeGasUsed,
    effectiveGasPrice: effectiveGasPrice(tx, baseFee),
    logs: (result.receipt.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
  };
}

function uint(bytes: Uint8Array | undefined): bigint {
  return bytes === undefined || bytes.length === 0 ? 0n : BigInt(bytesHex(bytes));
}

/** The Common of a header given as its RLP fields: the rules at its number (field 8) and time (field 11). */
function commonOfHeader(config: ImportedChainConfig, fields: readonly Uint8Array[]): Common {
  return config.commonAt(uint(fields[8]), uint(fields[11]));
}

/** Decodes one block of a chain file (its RLP list) under the rules at its number and time. */
export function decodeChainFileBlock(config: ImportedChainConfig, values: BlockBytes): Block {
  return createBlockFromBytesArray(values, { common: commonOfHeader(config, values[0]) });
}

/**
 * Executes `block` on `parent` (the state after its parent) and checks the result against the
 * header; throws ImportedBlockError naming the block on a failure or a mismatch.
 */
export async function executeImportedBlock(block: Block, parent: StateView, hashOf: AncestorHashes): Promise<ImportedBlockOutcome> {
  const { header } = block;
  const hash = block.hash();
  const fail = (problem: string): never => {
    throw new ImportedBlockError(header.number, bytesHex(hash), problem);
  };
  const common = block.common;
  const state = ImportedStateManager.over(parent, common);
  const vm = await createVM({ common: vmCommon(common), stateManager: state, blockchain: ancestry(hashOf), evmOpts: gethEvmOptions(common) });
  let result: Awaited<ReturnType<typeof runBlock>>;
  try {
    result = await runBlock(vm, { block, generate: true, skipBlockValidation: true, skipHardForkValidation: true });
  } catch (error) {
    return fail(`execution failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (result.gasUsed !== header.gasUsed) fail(`gas used ${result.gasUsed} differs from the header's ${header.gasUsed}`);
  if (!Buffer.from(result.logsBloom).equals(header.logsBloom)) fail('the logs bloom differs from the header\'s');
  if (ImportedChainConfig.hasStatusReceipts(common) && !Buffer.from(result.receiptsRoot).equals(header.receiptTrie)) {
    fail(`receipts root ${bytesHex(result.receiptsRoot)} differs from the header's ${bytesHex(header.receiptTrie)}`);
  }
  if (header.requestsHash !== undefined && result.requestsHash !== undefined && !Buffer.from(result.requestsHash).equals(header.requestsHash)) {
    fail(`requests hash ${bytesHex(result.requestsHash)} differs from the header's ${bytesHex(header.requestsHash)}`);
  }
  const txs = block.transactions.map((tx, i) =>
    outcomeOf(tx, result.results[i]!, result.receipts[i]!.cumulativeBlockGasUsed, header.baseFeePerGas),
  );
  return { block, hash, txs, changesets: state.changesets() };
}

/** The execution context of a stored imported block, from its Ethereum header RLP. */
export function importedExecutionContext(
  config: ImportedChainConfig,
  headerRlp: Uint8Array,
  height: number,
  hashOf: AncestorHashes,
  parentState?: StateView,
): ExecutionContext {
  const fields = RLP.decode(headerRlp) as BlockHeaderBytes;
  const common = commonOfHeader(config, fields);
  const header = createBlockHeaderFromBytesArray(fields, { common, skipConsensusFormatValidation: true });
  const block = new Block(header, [], [], common.isActivatedEIP(4895) ? [] : undefined, { common });
  return {
    height,
    blockHash: header.hash(),
    common,
    block,
    parentState,
    decodeTx: (raw) => {
      const tx = createTxFromRLP(raw, { common });
      return { tx, hash: tx.hash() };
    },
    createVM: async (parent) => {
      const vm = await createVM({ common: vmCommon(common), stateManager: ImportedStateManager.over(parent, common), blockchain: ancestry(hashOf), evmOpts: gethEvmOptions(common) });
      await systemWrites(vm, block);
      return vm;
    },
  };
}
