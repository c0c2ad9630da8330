/**
 * EIP-1559 transaction signing with libsecp256k1 (the `secp256k1` package the node already
 * uses): the workload is pre-signed before timing, and the native signer keeps that setup
 * to a second or two for tens of thousands of transactions.
 */
import { RLP } from '@ethereumjs/rlp';
import createKeccakHash from 'keccak';
import secp256k1 from 'secp256k1';

/** The fields of a type-2 transaction without an access list. */
export interface Eip1559Fields {
  chainId: bigint;
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gasLimit: bigint;
  /** 20 bytes, or null to create a contract. */
  to: Uint8Array | null;
  value: bigint;
  data: Uint8Array;
}

/** Minimal big-endian bytes of an unsigned integer (0 is empty), as RLP wants. */
function uint(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

/** Strips leading zero bytes of a signature component. */
function trimmed(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

function keccak256(data: Uint8Array): Buffer {
  return createKeccakHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}

/** Signs `fields` with `privateKey` (32 bytes) and returns the raw `0x02 ‖ rlp(…)` transaction. */
export function signEip1559(fields: Eip1559Fields, privateKey: Uint8Array): Uint8Array {
  const body = [
    uint(fields.chainId),
    uint(fields.nonce),
    uint(fields.maxPriorityFeePerGas),
    uint(fields.maxFeePerGas),
    uint(fields.gasLimit),
    fields.to ?? new Uint8Array(),
    uint(fields.value),
    fields.data,
    [],
  ];
  const unsigned = RLP.encode(body);
  const digest = keccak256(Buffer.concat([Buffer.from([2]), unsigned]));
  const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey);
  const signed = RLP.encode([...body, uint(BigInt(recid)), trimmed(signature.subarray(0, 32)), trimmed(signature.subarray(32, 64))]);
  return Buffer.concat([Buffer.from([2]), signed]);
}

/** The address of the contract `sender` creates with `nonce` (keccak256(rlp([sender, nonce]))[12:]). */
export function createdAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(RLP.encode([sender, uint(nonce)])).subarray(12);
}

/** `0x`-prefixed lower-case hex. */
export function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}
