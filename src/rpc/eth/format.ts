/** JSON shapes of blocks, transactions, receipts and logs, member for member as geth writes them. */
import type { EthBlock, EthBlockHeader, EthLog, EthReceipt, EthTransaction, TxPosition } from './backend.js';
import { bytesHex, quantity } from './hex.js';

/** keccak256(rlp([])): the uncle hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_HASH = `0x${'00'.repeat(32)}`;
const ZERO_NONCE = '0x0000000000000000';

/** A JSON object as sent on the wire. */
export type JsonObject = Record<string, unknown>;

/** Header fields shared by blocks and newHeads notifications. */
export function formatHeader(header: EthBlockHeader): JsonObject {
  return {
    baseFeePerGas: quantity(header.baseFeePerGas),
    difficulty: '0x0',
    extraData: bytesHex(header.extraData),
    gasLimit: quantity(header.gasLimit),
    gasUsed: quantity(header.gasUsed),
    hash: bytesHex(header.hash),
    logsBloom: bytesHex(header.logsBloom),
    miner: bytesHex(header.miner),
    mixHash: ZERO_HASH,
    nonce: ZERO_NONCE,
    number: quantity(header.number),
    parentHash: bytesHex(header.parentHash),
    receiptsRoot: bytesHex(header.receiptsRoot),
    sha3Uncles: EMPTY_UNCLES_HASH,
    stateRoot: bytesHex(header.stateRoot),
    timestamp: quantity(header.timestamp),
    transactionsRoot: bytesHex(header.transactionsRoot),
  };
}

/** A block: hashes only, or full transaction objects when `fullTransactions`. */
export function formatBlock(block: EthBlock, fullTransactions: boolean): JsonObject {
  const header = formatHeader(block);
  const transactions = fullTransactions
    ? block.transactions.map((tx, index) =>
        formatTransaction(tx, {
          blockHash: block.hash,
          blockNumber: block.number,
          index,
          baseFeePerGas: block.baseFeePerGas,
          blockTimestamp: block.timestamp,
        }),
      )
    : block.transactions.map((tx) => bytesHex(tx.hash));
  return { ...header, size: quantity(block.size), transactions, uncles: [] };
}

/** The price a transaction paid per gas: a dynamic-fee tx pays base fee + capped tip once mined. */
export function effectiveGasPrice(tx: EthTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (tx.type !== 2) return tx.gasPrice ?? 0n;
  const maxFee = tx.maxFeePerGas ?? 0n;
  if (baseFeePerGas === undefined) return maxFee;
  const tip = tx.maxPriorityFeePerGas ?? 0n;
  const paid = baseFeePerGas + tip;
  return paid < maxFee ? paid : maxFee;
}

/** A transaction object (SPEC "EVM transaction object"); block fields are null while pending. */
export function formatTransaction(tx: EthTransaction, position: TxPosition | null): JsonObject {
  const out: JsonObject = {
    blockHash: position === null ? null : bytesHex(position.blockHash),
    blockNumber: position === null ? null : quantity(position.blockNumber),
    blockTimestamp: position === null ? null : quantity(position.blockTimestamp),
    from: bytesHex(tx.from),
    gas: quantity(tx.gas),
    gasPrice: quantity(effectiveGasPrice(tx, position?.baseFeePerGas)),
  };
  if (tx.type === 2) {
    out['maxFeePerGas'] = quantity(tx.maxFeePerGas ?? 0n);
    out['maxPriorityFeePerGas'] = quantity(tx.maxPriorityFeePerGas ?? 0n);
  }
  out['hash'] = bytesHex(tx.hash);
  out['input'] = bytesHex(tx.input);
  out['nonce'] = quantity(tx.nonce);
  out['to'] = tx.to === null ? null : bytesHex(tx.to);
  out['transactionIndex'] = position === null ? null : quantity(position.index);
  out['value'] = quantity(tx.value);
  out['type'] = quantity(tx.type);
  if (tx.type !== 0) {
    out['accessList'] = (tx.accessList ?? []).map((entry) => ({
      address: bytesHex(entry.address),
      storageKeys: entry.storageKeys.map(bytesHex),
    }));
  }
  if (tx.chainId !== undefined) out['chainId'] = quantity(tx.chainId);
  out['v'] = quantity(tx.v);
  out['r'] = quantity(tx.r);
  out['s'] = quantity(tx.s);
  if (tx.type !== 0) out['yParity'] = quantity(tx.v);
  return out;
}

/** A log object. */
export function formatLog(log: EthLog): JsonObject {
  return {
    address: bytesHex(log.address),
    topics: log.topics.map(bytesHex),
    data: bytesHex(log.data),
    blockNumber: quantity(log.blockNumber),
    transactionHash: bytesHex(log.transactionHash),
    transactionIndex: quantity(log.transactionIndex),
    blockHash: bytesHex(log.blockHash),
    blockTimestamp: quantity(log.blockTimestamp),
    logIndex: quantity(log.logIndex),
    removed: false,
  };
}

/** A receipt object. */
export function formatReceipt(receipt: EthReceipt): JsonObject {
  return {
    blockHash: bytesHex(receipt.blockHash),
    blockNumber: quantity(receipt.blockNumber),
    blockTimestamp: quantity(receipt.blockTimestamp),
    contractAddress: receipt.contractAddress === null ? null : bytesHex(receipt.contractAddress),
    cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: quantity(receipt.effectiveGasPrice),
    from: bytesHex(receipt.from),
    gasUsed: quantity(receipt.gasUsed),
    logs: receipt.logs.map(formatLog),
    logsBloom: bytesHex(receipt.logsBloom),
    status: quantity(receipt.status),
    to: receipt.to === null ? null : bytesHex(receipt.to),
    transactionHash: bytesHex(receipt.transactionHash),
    transactionIndex: quantity(receipt.transactionIndex),
    type: quantity(receipt.type),
  };
}

/** A storage word as eth_getStorageAt returns it: always 32 bytes, left-padded if the backend gave fewer. */
export function formatStorageWord(word: Uint8Array): string {
  return `0x${Buffer.from(word).toString('hex').padStart(64, '0')}`;
}
