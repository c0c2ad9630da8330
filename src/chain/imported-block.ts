/**
 * The stored form of a block imported from an Ethereum chain: the node's own block record plus
 * the block's Ethereum identity (hash and header RLP), so the chain serves it under its
 * Ethereum hash and re-executes it with its Ethereum context. A leading tag byte tells it
 * apart from a block of our own (whose record is an RLP list, first byte ≥ 0xc0), so reading
 * our own blocks costs one byte comparison.
 */
import { decode as rlpDecode, encode as rlpEncode } from '@ethereumjs/rlp';
import { BlockFormatError, decodeBlock, encodeBlock, type Block, type StoredBlock } from './block.js';
import { keccak256 } from './hash.js';
import { withFields } from '../util/objects.js';

/** The Ethereum identity of an imported block. */
export interface ImportedOrigin {
  /** The Ethereum block hash. */
  hash: Uint8Array;
  /** The Ethereum header RLP; empty for a genesis whose header (not in the chain file) could not be rebuilt to its hash. */
  header: Uint8Array;
  /**
   * RLP of the block's uncle headers and withdrawals as it carries them (ethereum-header.ts
   * `encodeBodyExtras`); absent for a genesis without its header and for blocks imported before it was kept.
   */
  body?: Uint8Array;
}

/** A stored block, with its Ethereum identity when it was imported. */
export interface ChainBlock extends StoredBlock {
  imported?: ImportedOrigin;
}

const IMPORTED_TAG = 0x01;

/** True when `record` is an imported block's record. */
export function isImportedRecord(record: Uint8Array): boolean {
  return record.length > 0 && record[0] === IMPORTED_TAG;
}

/** Checks that a non-genesis origin's header hashes to its hash. */
export function checkOrigin(origin: ImportedOrigin): void {
  if (origin.hash.length !== 32) throw new BlockFormatError(`Ethereum block hash must be 32 bytes, got ${origin.hash.length}`);
  if (origin.header.length > 0 && !keccak256(origin.header).equals(origin.hash)) {
    throw new BlockFormatError('the Ethereum header does not hash to the Ethereum block hash');
  }
}

/** The record of an imported block: tag ‖ RLP([block record, Ethereum hash, Ethereum header, body extras?]). */
export function encodeImportedBlock(block: Block, origin: ImportedOrigin): Uint8Array {
  checkOrigin(origin);
  const fields = [encodeBlock(block), origin.hash, origin.header];
  if (origin.body !== undefined) fields.push(origin.body);
  const body = rlpEncode(fields);
  const out = new Uint8Array(body.length + 1);
  out[0] = IMPORTED_TAG;
  out.set(body, 1);
  return out;
}

/** Decodes `encodeImportedBlock` output; the block's hash is its Ethereum hash. */
export function decodeImportedBlock(record: Uint8Array): ChainBlock {
  if (!isImportedRecord(record)) throw new BlockFormatError('not an imported block record');
  const fields = rlpDecode(record.subarray(1));
  if (!Array.isArray(fields) || fields.length < 3 || fields.length > 4 || !fields.every((f) => f instanceof Uint8Array)) {
    throw new BlockFormatError('imported block record must be an RLP list of 3 or 4 byte strings');
  }
  const [inner, hash, header, extras] = fields as Uint8Array[];
  const block = decodeBlock(inner!);
  const origin: ImportedOrigin = { hash: hash!, header: header! };
  if (extras !== undefined) origin.body = extras;
  checkOrigin(origin);
  return withFields(block, { hash: Buffer.from(origin.hash), imported: origin });
}
