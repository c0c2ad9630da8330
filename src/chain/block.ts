/**
 * Blocks: header and block types, their RLP encoding, the block hash, the tx root, the
 * proposer's ed25519 signature and the Ethereum logs bloom.
 */
import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from 'node:crypto';
import { keccak256, keccak256Memo } from './hash.js';
import { decodeRlp, encodeRlp, uintBytes } from '../util/rlp.js';

/** Header of a block; the field order is the hashing order. */
export interface BlockHeader {
  /** EVM chain id (genesis `evm_chain_id`). */
  chainId: bigint;
  height: number;
  /** Block time, milliseconds since the Unix epoch. */
  timeMs: number;
  /** 20-byte validator address of the proposer. */
  proposer: Uint8Array;
  /** Hash of block height − 1 (32 zero bytes for the first block). */
  lastBlockHash: Uint8Array;
  /** App hash after the previous block (for block 1: the staged genesis state). */
  appHash: Uint8Array;
  txRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  gasUsed: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  /** 256-byte Ethereum logs bloom of every log in the block. */
  logsBloom: Uint8Array;
}

/** A block: header, raw signed transactions and the proposer's signature of the block hash. */
export interface Block {
  header: BlockHeader;
  txs: Uint8Array[];
  /** 64-byte ed25519 signature of `blockHash(header)`. */
  signature: Uint8Array;
}

/** A block as decoded from storage, with its hash computed once. */
export interface StoredBlock extends Block {
  hash: Buffer;
}

/** An EVM log as emitted by a transaction. */
export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** The block was malformed or failed a check; the message names the field. */
export class BlockFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockFormatError';
  }
}

export const ZERO_HASH: Buffer = Buffer.alloc(32);
export const EMPTY_BLOOM: Buffer = Buffer.alloc(256);
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function expectLength(bytes: Uint8Array, length: number, field: string): void {
  if (bytes.length !== length) throw new BlockFormatError(`${field} must be ${length} bytes, got ${bytes.length}`);
}

/** RLP integer: minimal big-endian bytes, empty for zero. */
function intBytes(value: bigint | number): Uint8Array {
  if (value < 0) throw new BlockFormatError(`negative integer ${value} cannot be encoded`);
  return uintBytes(value);
}

function bytesInt(bytes: Uint8Array, field: string): bigint {
  if (bytes.length > 0 && bytes[0] === 0) throw new BlockFormatError(`${field} has a leading zero byte`);
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function bytesNumber(bytes: Uint8Array, field: string): number {
  const v = bytesInt(bytes, field);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new BlockFormatError(`${field} ${v} exceeds 2^53 - 1`);
  return Number(v);
}

function headerFields(header: BlockHeader): Uint8Array[] {
  expectLength(header.proposer, 20, 'proposer');
  expectLength(header.lastBlockHash, 32, 'lastBlockHash');
  expectLength(header.appHash, 32, 'appHash');
  expectLength(header.txRoot, 32, 'txRoot');
  expectLength(header.receiptsRoot, 32, 'receiptsRoot');
  expectLength(header.logsBloom, 256, 'logsBloom');
  return [
    intBytes(header.chainId),
    intBytes(header.height),
    intBytes(header.timeMs),
    header.proposer,
    header.lastBlockHash,
    header.appHash,
    header.txRoot,
    header.receiptsRoot,
    intBytes(header.gasUsed),
    intBytes(header.gasLimit),
    intBytes(header.baseFee),
    header.logsBloom,
  ];
}

function headerFromFields(fields: unknown): BlockHeader {
  if (!Array.isArray(fields) || fields.length !== 12 || !fields.every((f) => f instanceof Uint8Array)) {
    throw new BlockFormatError('block header must be an RLP list of 12 byte strings');
  }
  // The fixed-width fields are copied out of the decoded bytes: a header is kept (by caches,
  // by RPC answers) long after its block's bytes could otherwise go.
  const f = fields as Uint8Array[];
  const header: BlockHeader = {
    chainId: bytesInt(f[0]!, 'chainId'),
    height: bytesNumber(f[1]!, 'height'),
    timeMs: bytesNumber(f[2]!, 'timeMs'),
    proposer: f[3]!.slice(),
    lastBlockHash: f[4]!.slice(),
    appHash: f[5]!.slice(),
    txRoot: f[6]!.slice(),
    receiptsRoot: f[7]!.slice(),
    gasUsed: bytesInt(f[8]!, 'gasUsed'),
    gasLimit: bytesInt(f[9]!, 'gasLimit'),
    baseFee: bytesInt(f[10]!, 'baseFee'),
    logsBloom: f[11]!.slice(),
  };
  headerFields(header); // validates the fixed-width fields
  return header;
}

/** RLP of the header fields, the preimage of the block hash. */
export function encodeHeader(header: BlockHeader): Uint8Array {
  return encodeRlp(headerFields(header));
}

/** Decodes `encodeHeader` output. */
export function decodeHeader(encoded: Uint8Array): BlockHeader {
  return headerFromFields(decodeRlp(encoded));
}

/** keccak256 of the header's RLP: the Ethereum- and consensus-facing block hash. */
export function blockHash(header: BlockHeader): Buffer {
  return keccak256(encodeHeader(header));
}

/** Hash of a raw signed transaction (keccak256, as Ethereum computes it). */
export function txHash(rawTx: Uint8Array): Buffer {
  return keccak256Memo(rawTx);
}

/** keccak256 of the concatenated tx hashes; keccak256 of nothing for an empty block. */
export function txRoot(txs: readonly Uint8Array[]): Buffer {
  const hashes = Buffer.allocUnsafe(32 * txs.length);
  for (let i = 0; i < txs.length; i++) hashes.set(txHash(txs[i]!), 32 * i);
  return keccak256(hashes);
}

/** RLP of [header fields, txs, signature]. */
export function encodeBlock(block: Block): Uint8Array {
  expectLength(block.signature, 64, 'signature');
  return encodeRlp([headerFields(block.header), block.txs, block.signature]);
}

/**
 * Decodes `encodeBlock` output and computes the hash. The transactions are views of `encoded`
 * rather than a copy each: a follower decodes every block it syncs, and 1,400 small buffers a
 * block are work for the allocator and the collector.
 */
export function decodeBlock(encoded: Uint8Array): StoredBlock {
  const decoded = decodeRlp(encoded);
  if (!Array.isArray(decoded) || decoded.length !== 3) throw new BlockFormatError('block must be an RLP list of 3 items');
  const [fields, txs, signature] = decoded;
  const header = headerFromFields(fields);
  if (!Array.isArray(txs) || !txs.every((tx) => tx instanceof Uint8Array)) {
    throw new BlockFormatError('block txs must be a list of byte strings');
  }
  if (!(signature instanceof Uint8Array)) throw new BlockFormatError('block signature must be a byte string');
  expectLength(signature, 64, 'signature');
  return { header, txs: txs as Uint8Array[], signature: signature.slice(), hash: blockHash(header) };
}

/** The ed25519 private key object of a 32-byte seed. */
export function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  expectLength(seed, 32, 'ed25519 seed');
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The ed25519 public key object of 32 raw bytes. */
export function ed25519PublicKey(publicKey: Uint8Array): KeyObject {
  expectLength(publicKey, 32, 'ed25519 public key');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

/** The raw 32-byte public key of an ed25519 seed. */
export function ed25519PublicKeyOf(seed: Uint8Array): Buffer {
  const der = createPublicKey(ed25519PrivateKey(seed)).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** ed25519 signature (64 bytes) of a 32-byte block hash by the 32-byte seed `seed`. */
export function signBlockHash(hash: Uint8Array, seed: Uint8Array): Buffer {
  expectLength(hash, 32, 'block hash');
  return edSign(null, hash, ed25519PrivateKey(seed));
}

/** True when `signature` is `publicKey`'s ed25519 signature of `hash`. */
export function verifyBlockSignature(hash: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (hash.length !== 32 || signature.length !== 64) return false;
  return edVerify(null, hash, ed25519PublicKey(publicKey), signature);
}

/** Sets the three bloom bits of `item` (an address or a topic) in the 256-byte `bloom`. */
export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
  }
}

/** The three (byte index, bit mask) pairs `item` sets in a bloom, as a flat list. */
function bloomBitsOf(item: Uint8Array): number[] {
  const h = keccak256(item);
  const bits: number[] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bits.push(255 - (bit >> 3), 1 << (bit & 7));
  }
  return bits;
}

function hasBloomBits(bloom: Uint8Array, bits: readonly number[]): boolean {
  for (let i = 0; i < bits.length; i += 2) if ((bloom[bits[i]!]! & bits[i + 1]!) === 0) return false;
  return true;
}

/** True when every bloom bit of `item` is set: `item` may be present (false means it is not). */
export function bloomMayContain(bloom: Uint8Array, item: Uint8Array): boolean {
  return hasBloomBits(bloom, bloomBitsOf(item));
}

/** The logs bloom of `logs`: every address and topic. */
export function logsBloom(logs: Iterable<Log>): Buffer {
  const bloom = Buffer.alloc(256);
  for (const log of logs) {
    addToBloom(bloom, log.address);
    for (const topic of log.topics) addToBloom(bloom, topic);
  }
  return bloom;
}

/** Bitwise OR of blooms (a block's bloom from its receipts' blooms). */
export function mergeBlooms(blooms: Iterable<Uint8Array>): Buffer {
  const out = Buffer.alloc(256);
  for (const bloom of blooms) for (let i = 0; i < 256; i++) out[i]! |= bloom[i]!;
  return out;
}

/**
 * bloomMayMatchFilter for one filter over many blooms: the filter's items are hashed to their
 * bloom bits once, not once per block scanned.
 */
export function bloomFilterMatcher(
  addresses: readonly Uint8Array[],
  topics: ReadonlyArray<readonly Uint8Array[] | null>,
): (bloom: Uint8Array) => boolean {
  const groups = [addresses, ...topics]
    .filter((alternatives): alternatives is readonly Uint8Array[] => alternatives !== null && alternatives.length > 0)
    .map((alternatives) => alternatives.map(bloomBitsOf));
  return (bloom) => groups.every((alternatives) => alternatives.some((bits) => hasBloomBits(bloom, bits)));
}

/**
 * True when a block with `bloom` may hold a log matching an eth_getLogs filter: any of
 * `addresses` (none = any) and, per position, any of that position's topics (empty = any).
 */
export function bloomMayMatchFilter(
  bloom: Uint8Array,
  addresses: readonly Uint8Array[],
  topics: ReadonlyArray<readonly Uint8Array[] | null>,
): boolean {
  return bloomFilterMatcher(addresses, topics)(bloom);
}
