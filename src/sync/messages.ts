/**
 * The messages of Strata's peer protocols (each msgpackr-encoded on its own versioned
 * protocol) and their shape checks: a peer's message is `unknown` until one of these accepts it.
 */
import { SyncMessageError } from './errors.js';

/** A peer's chain and height, asked for once a peer connects. */
export const STATUS_PROTOCOL = '/strata/status/1';
/** One-way: a node tells its peers it committed a block. */
export const ANNOUNCE_PROTOCOL = '/strata/announce/1';
/** A range of committed blocks. */
export const BLOCKS_PROTOCOL = '/strata/blocks/1';
/** One-way: transactions a node admitted to its mempool. */
export const TXS_PROTOCOL = '/strata/txs/1';

/** Most blocks one range request may ask for. */
export const MAX_BLOCKS_PER_REQUEST = 64;

/** Reply to a status request. */
export interface StatusMessage {
  chainId: string;
  height: number;
}

/** An announced height. */
export interface AnnounceMessage {
  height: number;
}

/** A range request: blocks `from`..`to` inclusive. */
export interface BlocksRequest {
  from: number;
  to: number;
}

/** A range reply: encoded blocks from the requested start, as many as fit one message (possibly none). */
export interface BlocksReply {
  blocks: Uint8Array[];
}

/** Gossiped raw transactions. */
export interface TxsMessage {
  txs: Uint8Array[];
}

function record(protocol: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw new SyncMessageError(protocol, 'expected a map');
  }
  return value as Record<string, unknown>;
}

function height(protocol: string, value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new SyncMessageError(protocol, `${field} must be a non-negative integer`);
  return value;
}

function byteList(protocol: string, value: unknown, field: string): Uint8Array[] {
  if (!Array.isArray(value) || !value.every((item) => item instanceof Uint8Array)) throw new SyncMessageError(protocol, `${field} must be a list of byte strings`);
  return value as Uint8Array[];
}

/** Checks a status reply. */
export function parseStatus(value: unknown): StatusMessage {
  const m = record(STATUS_PROTOCOL, value);
  if (typeof m.chainId !== 'string' || m.chainId.length > 256) throw new SyncMessageError(STATUS_PROTOCOL, 'chainId must be a string');
  return { chainId: m.chainId, height: height(STATUS_PROTOCOL, m.height, 'height') };
}

/** Checks an announcement. */
export function parseAnnounce(value: unknown): AnnounceMessage {
  return { height: height(ANNOUNCE_PROTOCOL, record(ANNOUNCE_PROTOCOL, value).height, 'height') };
}

/** Checks a range request; the range must be ordered and at most MAX_BLOCKS_PER_REQUEST long. */
export function parseBlocksRequest(value: unknown): BlocksRequest {
  const m = record(BLOCKS_PROTOCOL, value);
  const from = height(BLOCKS_PROTOCOL, m.from, 'from');
  const to = height(BLOCKS_PROTOCOL, m.to, 'to');
  if (from < 1 || to < from || to - from + 1 > MAX_BLOCKS_PER_REQUEST) {
    throw new SyncMessageError(BLOCKS_PROTOCOL, `range ${from}..${to} must start at 1 or above and hold 1 to ${MAX_BLOCKS_PER_REQUEST} blocks`);
  }
  return { from, to };
}

/** Checks a range reply. */
export function parseBlocksReply(value: unknown): BlocksReply {
  return { blocks: byteList(BLOCKS_PROTOCOL, record(BLOCKS_PROTOCOL, value).blocks, 'blocks') };
}

/** Checks gossiped transactions. */
export function parseTxs(value: unknown): TxsMessage {
  return { txs: byteList(TXS_PROTOCOL, record(TXS_PROTOCOL, value).txs, 'txs') };
}
