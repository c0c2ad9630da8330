/**
 * What an imported block's own Ethereum header and body say, read from the RLP the block store
 * keeps: the header's fields by position (the optional tail — base fee, withdrawals root, blob
 * gas, beacon root, requests hash — present only from the fork that added it), the block's
 * withdrawals and uncle hashes, and its size as the RLP of the whole block.
 */
import { decode as rlpDecode, encode as rlpEncode } from '@ethereumjs/rlp';
import { BlockFormatError } from './block.js';
import { keccak256 } from './hash.js';

/** The header fields of an Ethereum block, as its RLP carries them. */
export interface EthereumHeaderFields {
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  /** From London (EIP-1559). */
  baseFeePerGas?: bigint;
  /** From Shanghai (EIP-4895). */
  withdrawalsRoot?: Uint8Array;
  /** From Cancun (EIP-4844). */
  blobGasUsed?: bigint;
  /** From Cancun (EIP-4844). */
  excessBlobGas?: bigint;
  /** From Cancun (EIP-4788). */
  parentBeaconBlockRoot?: Uint8Array;
  /** From Prague (EIP-7685). */
  requestsHash?: Uint8Array;
}

/** One withdrawal of a block body (EIP-4895). */
export interface EthereumWithdrawal {
  index: bigint;
  validatorIndex: bigint;
  address: Uint8Array;
  /** In gwei. */
  amount: bigint;
}

/** The body parts of an imported block besides its transactions. */
export interface EthereumBodyExtras {
  /** Hashes of the uncle headers. */
  uncles: Uint8Array[];
  /** Present from Shanghai on. */
  withdrawals?: EthereumWithdrawal[];
}

function uint(value: unknown, field: string): bigint {
  if (!(value instanceof Uint8Array)) throw new BlockFormatError(`Ethereum header field ${field} is a list, not an integer`);
  return value.length === 0 ? 0n : BigInt(`0x${Buffer.from(value).toString('hex')}`);
}

function bytes(value: unknown, field: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new BlockFormatError(`Ethereum header field ${field} is a list, not bytes`);
  return value;
}

/** Decodes an Ethereum header RLP (15 to 21 fields). */
export function decodeEthereumHeader(headerRlp: Uint8Array): EthereumHeaderFields {
  const f = rlpDecode(headerRlp);
  if (!Array.isArray(f) || f.length < 15 || f.length > 21) throw new BlockFormatError('an Ethereum header is an RLP list of 15 to 21 fields');
  const optional = <T>(i: number, read: (v: unknown, name: string) => T, name: string): T | undefined => (f.length > i ? read(f[i], name) : undefined);
  const header: EthereumHeaderFields = {
    parentHash: bytes(f[0], 'parentHash'),
    uncleHash: bytes(f[1], 'sha3Uncles'),
    coinbase: bytes(f[2], 'miner'),
    stateRoot: bytes(f[3], 'stateRoot'),
    transactionsRoot: bytes(f[4], 'transactionsRoot'),
    receiptsRoot: bytes(f[5], 'receiptsRoot'),
    logsBloom: bytes(f[6], 'logsBloom'),
    difficulty: uint(f[7], 'difficulty'),
    number: uint(f[8], 'number'),
    gasLimit: uint(f[9], 'gasLimit'),
    gasUsed: uint(f[10], 'gasUsed'),
    timestamp: uint(f[11], 'timestamp'),
    extraData: bytes(f[12], 'extraData'),
    mixHash: bytes(f[13], 'mixHash'),
    nonce: bytes(f[14], 'nonce'),
  };
  const baseFee = optional(15, uint, 'baseFeePerGas');
  const withdrawalsRoot = optional(16, bytes, 'withdrawalsRoot');
  const blobGasUsed = optional(17, uint, 'blobGasUsed');
  const excessBlobGas = optional(18, uint, 'excessBlobGas');
  const beaconRoot = optional(19, bytes, 'parentBeaconBlockRoot');
  const requestsHash = optional(20, bytes, 'requestsHash');
  if (baseFee !== undefined) header.baseFeePerGas = baseFee;
  if (withdrawalsRoot !== undefined) header.withdrawalsRoot = withdrawalsRoot;
  if (blobGasUsed !== undefined) header.blobGasUsed = blobGasUsed;
  if (excessBlobGas !== undefined) header.excessBlobGas = excessBlobGas;
  if (beaconRoot !== undefined) header.parentBeaconBlockRoot = beaconRoot;
  if (requestsHash !== undefined) header.requestsHash = requestsHash;
  return header;
}

/**
 * The stored body extras: RLP of [uncle headers, withdrawals?] exactly as the block carries them
 * (the withdrawals list only from Shanghai on).
 */
export function encodeBodyExtras(uncles: readonly unknown[], withdrawals: readonly unknown[] | undefined): Uint8Array {
  return rlpEncode((withdrawals === undefined ? [uncles] : [uncles, withdrawals]) as never);
}

/** Decodes `encodeBodyExtras` output. */
export function decodeBodyExtras(encoded: Uint8Array): EthereumBodyExtras {
  const parts = rlpDecode(encoded);
  if (!Array.isArray(parts) || parts.length < 1 || parts.length > 2 || !parts.every(Array.isArray)) {
    throw new BlockFormatError('imported block body extras must be an RLP list of [uncles, withdrawals?]');
  }
  const [uncles, withdrawals] = parts as unknown[][];
  const out: EthereumBodyExtras = { uncles: uncles!.map((u) => keccak256(rlpEncode(u as never))) };
  if (withdrawals !== undefined) {
    out.withdrawals = withdrawals.map((w) => {
      if (!Array.isArray(w) || w.length !== 4) throw new BlockFormatError('a withdrawal is an RLP list of 4 fields');
      return { index: uint(w[0], 'withdrawal index'), validatorIndex: uint(w[1], 'validator index'), address: bytes(w[2], 'withdrawal address'), amount: uint(w[3], 'withdrawal amount') };
    });
  }
  return out;
}

/** Length of the RLP prefix of a string or list whose payload is `length` bytes. */
function prefixLength(length: number): number {
  if (length < 56) return 1;
  return 1 + Math.ceil(length.toString(16).length / 2);
}

/** The payload length of an RLP item given its full encoding. */
function payloadLength(encoded: Uint8Array): number {
  const first = encoded[0]!;
  if (first < 0xc0) throw new BlockFormatError('expected an RLP list');
  return encoded.length - (first <= 0xf7 ? 1 : 1 + (first - 0xf7));
}

/**
 * The RLP size of the whole block [header, transactions, uncles, withdrawals?], computed from
 * the lengths of its parts: a typed transaction is a byte string in the block, a legacy one the
 * list it is.
 */
export function ethereumBlockSize(headerRlp: Uint8Array, rawTxs: readonly Uint8Array[], bodyExtras: Uint8Array): number {
  let txPayload = 0;
  for (const raw of rawTxs) {
    const legacy = raw.length > 0 && raw[0]! >= 0xc0;
    txPayload += legacy ? raw.length : raw.length === 1 && raw[0]! < 0x80 ? 1 : prefixLength(raw.length) + raw.length;
  }
  const payload = headerRlp.length + prefixLength(txPayload) + txPayload + payloadLength(bodyExtras);
  return prefixLength(payload) + payload;
}
