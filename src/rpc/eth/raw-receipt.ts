/** A receipt's consensus encoding, as geth's debug_getRawReceipts returns it. */
import { encode as rlpEncode } from '@ethereumjs/rlp';
import type { EthReceipt } from './backend.js';

function minimalBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  const hex = value.toString(16);
  return new Uint8Array(Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex'));
}

/**
 * RLP of [status, cumulativeGasUsed, logsBloom, [[address, topics, data], …]] (EIP-658), behind
 * the type byte for a typed transaction (EIP-2718); a legacy receipt has no prefix.
 */
export function encodeReceipt(receipt: EthReceipt): Uint8Array {
  const body = rlpEncode([
    receipt.status === 1 ? Uint8Array.of(1) : new Uint8Array(),
    minimalBytes(receipt.cumulativeGasUsed),
    receipt.logsBloom,
    receipt.logs.map((log) => [log.address, [...log.topics], log.data]),
  ]);
  if (receipt.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = receipt.type;
  out.set(body, 1);
  return out;
}
