/** JSON shapes of blocks, transactions, receipts and logs, member for member as geth writes them. */
import type { EthBlock, EthBlockHeader, EthLog, EthReceipt, EthTransaction, TxPosition } from './backend.js';
import { bytesHex, quantity } from './hex.js';
import { RawJson } from '../../util/raw-json.js';
import { withFields } from '../../util/objects.js';

/** keccak256(rlp([])): the uncle hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_HASH = `0x${'00'.repeat(32)}`;
const ZERO_NONCE = '0x0000000000000000';

/** A JSON object as sent on the wire. */
export type JsonObject = Record<string, unknown>;

/** Header fields shared by blocks and newHeads notifications. */
export function formatHeader(header: EthBlockHeader): JsonObject {
  // geth writes a header as a Go map, so its members come out in key order; the fields a fork
  // added appear only where the header has them.
  const out: JsonObject = {};
  if (header.noBaseFee !== true) out['baseFeePerGas'] = quantity(header.baseFeePerGas);
  if (header.blobGasUsed !== undefined) out['blobGasUsed'] = quantity(header.blobGasUsed);
  out['difficulty'] = quantity(header.difficulty ?? 0n);
  if (header.excessBlobGas !== undefined) out['excessBlobGas'] = quantity(header.excessBlobGas);
  out['extraData'] = bytesHex(header.extraData);
  out['gasLimit'] = quantity(header.gasLimit);
  out['gasUsed'] = quantity(header.gasUsed);
  out['hash'] = bytesHex(header.hash);
  out['logsBloom'] = bytesHex(header.logsBloom);
  out['miner'] = bytesHex(header.miner);
  out['mixHash'] = header.mixHash === undefined ? ZERO_HASH : bytesHex(header.mixHash);
  out['nonce'] = header.nonce === undefined ? ZERO_NONCE : bytesHex(header.nonce);
  out['number'] = quantity(header.number);
  if (header.parentBeaconBlockRoot !== undefined) out['parentBeaconBlockRoot'] = bytesHex(header.parentBeaconBlockRoot);
  out['parentHash'] = bytesHex(header.parentHash);
  out['receiptsRoot'] = bytesHex(header.receiptsRoot);
  if (header.requestsHash !== undefined) out['requestsHash'] = bytesHex(header.requestsHash);
  out['sha3Uncles'] = header.sha3Uncles === undefined ? EMPTY_UNCLES_HASH : bytesHex(header.sha3Uncles);
  out['stateRoot'] = bytesHex(header.stateRoot);
  out['timestamp'] = quantity(header.timestamp);
  out['transactionsRoot'] = bytesHex(header.transactionsRoot);
  if (header.withdrawalsRoot !== undefined) out['withdrawalsRoot'] = bytesHex(header.withdrawalsRoot);
  return out;
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
  const out: JsonObject = withFields(header, { size: quantity(block.size), transactions, uncles: (block.uncles ?? []).map(bytesHex) });
  if (block.withdrawals !== undefined) {
    out['withdrawals'] = block.withdrawals.map((w) => ({
      index: quantity(w.index),
      validatorIndex: quantity(w.validatorIndex),
      address: bytesHex(w.address),
      amount: quantity(w.amount),
    }));
  }
  return out;
}

/** Transaction types that price gas by EIP-1559's fee cap and tip. */
function hasFeeCap(type: number): boolean {
  return type === 2 || type === 3 || type === 4;
}

/** The price a transaction paid per gas: a dynamic-fee tx pays base fee + capped tip once mined. */
export function effectiveGasPrice(tx: EthTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (!hasFeeCap(tx.type)) return tx.gasPrice ?? 0n;
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
  if (hasFeeCap(tx.type)) {
    out['maxFeePerGas'] = quantity(tx.maxFeePerGas ?? 0n);
    out['maxPriorityFeePerGas'] = quantity(tx.maxPriorityFeePerGas ?? 0n);
  }
  if (tx.type === 3) out['maxFeePerBlobGas'] = quantity(tx.maxFeePerBlobGas ?? 0n);
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
  if (tx.type === 3) out['blobVersionedHashes'] = (tx.blobVersionedHashes ?? []).map(bytesHex);
  if (tx.type === 4) {
    out['authorizationList'] = (tx.authorizationList ?? []).map((a) => ({
      chainId: quantity(a.chainId),
      address: bytesHex(a.address),
      nonce: quantity(a.nonce),
      yParity: quantity(a.yParity),
      r: quantity(a.r),
      s: quantity(a.s),
    }));
  }
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

/**
 * Log objects of logs in chain order: logs of one block (and of one transaction) come
 * together, so their block and transaction members are converted to hex once, not per log.
 */
export function formatLogs(logs: readonly EthLog[]): JsonObject[] {
  const out: JsonObject[] = new Array(logs.length);
  let block: { number: number; hash: string; numberHex: string; timestamp: string } | undefined;
  let tx: { index: number; hash: string; indexHex: string } | undefined;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    if (block === undefined || block.number !== log.blockNumber) {
      block = { number: log.blockNumber, hash: bytesHex(log.blockHash), numberHex: quantity(log.blockNumber), timestamp: quantity(log.blockTimestamp) };
      tx = undefined;
    }
    if (tx === undefined || tx.index !== log.transactionIndex) {
      tx = { index: log.transactionIndex, hash: bytesHex(log.transactionHash), indexHex: quantity(log.transactionIndex) };
    }
    out[i] = {
      address: bytesHex(log.address),
      topics: log.topics.map(bytesHex),
      data: bytesHex(log.data),
      blockNumber: block.numberHex,
      transactionHash: tx.hash,
      transactionIndex: tx.indexHex,
      blockHash: block.hash,
      blockTimestamp: block.timestamp,
      logIndex: quantity(log.logIndex),
      removed: false,
    };
  }
  return out;
}

/**
 * Each log's JSON text, by the log it encodes: a backend that hands out the same EthLog for a
 * log it remembers (eth_getLogs over recently queried blocks) gets the text back instead of
 * serialising again. Only the text is kept, not the log object it was made from: the text is
 * what is answered, and keeping both cost about 750 bytes more per remembered log.
 */
const logTexts = new WeakMap<EthLog, string>();

/**
 * formatLogs as one JSON array, each log serialised once while its EthLog lives (eth_getLogs'
 * answer). The array goes out as ASCII bytes written straight from the texts: joined into one
 * string, a range of thousands of logs was flattened and then encoded to UTF-8 again on its way
 * out, which cost about as much as serialising the logs.
 */
export function formatLogsJson(logs: readonly EthLog[]): RawJson {
  const parts: string[] = new Array(logs.length);
  const missing: number[] = [];
  for (let i = 0; i < logs.length; i++) {
    const text = logTexts.get(logs[i]!);
    if (text === undefined) missing.push(i);
    else parts[i] = text;
  }
  if (missing.length > 0) {
    const formatted = formatLogs(missing.map((i) => logs[i]!));
    missing.forEach((at, k) => {
      const text = JSON.stringify(formatted[k]);
      logTexts.set(logs[at]!, text);
      parts[at] = text;
    });
  }
  // Every member of a log is hex, a quantity or `false`: one byte per character.
  let length = parts.length > 0 ? parts.length - 1 : 0;
  for (const text of parts) length += text.length;
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) body[at++] = 0x2c;
    at += body.write(parts[i]!, at, 'latin1');
  }
  return new RawJson({ head: '[', body, tail: ']' });
}

/** A receipt object. */
export function formatReceipt(receipt: EthReceipt): JsonObject {
  const blob: JsonObject = {};
  if (receipt.blobGasPrice !== undefined) blob['blobGasPrice'] = quantity(receipt.blobGasPrice);
  if (receipt.blobGasUsed !== undefined) blob['blobGasUsed'] = quantity(receipt.blobGasUsed);
  return withFields(blob, {
    blockHash: bytesHex(receipt.blockHash),
    blockNumber: quantity(receipt.blockNumber),
    blockTimestamp: quantity(receipt.blockTimestamp),
    contractAddress: receipt.contractAddress === null ? null : bytesHex(receipt.contractAddress),
    cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: quantity(receipt.effectiveGasPrice),
    from: bytesHex(receipt.from),
    gasUsed: quantity(receipt.gasUsed),
    logs: formatLogs(receipt.logs),
    logsBloom: bytesHex(receipt.logsBloom),
    status: quantity(receipt.status),
    to: receipt.to === null ? null : bytesHex(receipt.to),
    transactionHash: bytesHex(receipt.transactionHash),
    transactionIndex: quantity(receipt.transactionIndex),
    type: quantity(receipt.type),
  });
}

/** A storage word as eth_getStorageAt returns it: always 32 bytes, left-padded if the backend gave fewer. */
export function formatStorageWord(word: Uint8Array): string {
  return `0x${Buffer.from(word).toString('hex').padStart(64, '0')}`;
}
