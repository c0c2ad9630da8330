/** Log filters: parsing the filter object, matching logs, and the block-range rules of eth_getLogs. */
import { ErrorCode, invalidArgument, RpcError } from '../jsonrpc/index.js';
import type { EthLog } from './backend.js';
import type { BlockNumberOrTag } from '../../provider/index.js';
import { parseAddress, parseBlockNumber, parseHash } from './params.js';

/** geth's cap on topic positions. */
export const MAX_TOPICS = 4;
/** geth's cap on the addresses of one filter. */
export const MAX_ADDRESSES = 1000;

/** Address and topic criteria shared by eth_getLogs and logs subscriptions. */
export interface LogCriteria {
  readonly addresses: readonly Uint8Array[];
  readonly topics: readonly (readonly Uint8Array[] | null)[];
}

/** A parsed eth_getLogs filter: a range of selectors, or one block by hash. */
export interface LogFilter extends LogCriteria {
  readonly fromBlock: BlockNumberOrTag | undefined;
  readonly toBlock: BlockNumberOrTag | undefined;
  readonly blockHash: Uint8Array | undefined;
}

function parseAddresses(value: unknown, index: number): Uint8Array[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    if (value.length > MAX_ADDRESSES) throw RpcError.server('exceed max addresses');
    return value.map((entry: unknown) => parseAddress(entry, index));
  }
  return [parseAddress(value, index)];
}

function parseTopics(value: unknown, index: number): (Uint8Array[] | null)[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidArgument(index, 'invalid topics');
  if (value.length > MAX_TOPICS) throw invalidArgument(index, 'exceed max topics');
  return value.map((position: unknown) => {
    if (position === null) return null;
    if (Array.isArray(position)) {
      if (position.length === 0) return null;
      return position.map((topic: unknown) => (topic === null ? null : parseHash(topic, index))).some((t) => t === null)
        ? null
        : position.map((topic: unknown) => parseHash(topic, index));
    }
    return [parseHash(position, index)];
  });
}

/** Address and topics of a filter object (a logs subscription or part of eth_getLogs). */
export function parseLogCriteria(value: unknown, index: number): LogCriteria {
  if (value === undefined || value === null) return { addresses: [], topics: [] };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(index, 'json: cannot unmarshal non-object into Go value of type filters.FilterCriteria');
  const fields = value as Record<string, unknown>;
  return { addresses: parseAddresses(fields['address'], index), topics: parseTopics(fields['topics'], index) };
}

/** The eth_getLogs filter object. */
export function parseLogFilter(value: unknown, index: number): LogFilter {
  const criteria = parseLogCriteria(value, index);
  const fields = value as Record<string, unknown>;
  const from = fields['fromBlock'];
  const to = fields['toBlock'];
  const hash = fields['blockHash'];
  const hasRange = (from !== undefined && from !== null) || (to !== undefined && to !== null);
  if (hash !== undefined && hash !== null) {
    if (hasRange) throw invalidArgument(index, "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other");
    return { ...criteria, fromBlock: undefined, toBlock: undefined, blockHash: parseHash(hash, index) };
  }
  return {
    ...criteria,
    fromBlock: from === undefined || from === null ? undefined : parseBlockNumber(from, index),
    toBlock: to === undefined || to === null ? undefined : parseBlockNumber(to, index),
    blockHash: undefined,
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** True when `log` satisfies the address and topic criteria (exported for backends that filter). */
export function logMatches(criteria: LogCriteria, log: EthLog): boolean {
  if (criteria.addresses.length > 0 && !criteria.addresses.some((address) => sameBytes(address, log.address))) return false;
  if (criteria.topics.length > log.topics.length) return false;
  return criteria.topics.every((alternatives, position) => {
    if (alternatives === null) return true;
    const topic = log.topics[position]!;
    return alternatives.some((candidate) => sameBytes(candidate, topic));
  });
}

/**
 * Checks a resolved range: ordered, not past the head, and no wider than `maxRange` blocks
 * (the `max-log-block-range` setting), whose error names the cap.
 */
export function checkLogRange(from: number, to: number, head: number, maxRange: number): void {
  if (from > to) throw RpcError.invalidParams('invalid block range params');
  if (to > head) throw RpcError.invalidParams('block range extends beyond current head block');
  const width = to - from + 1;
  if (width > maxRange) {
    throw new RpcError(
      ErrorCode.LimitExceeded,
      `block range too large: ${width} blocks requested (${from} to ${to}) but max-log-block-range is ${maxRange}; split the query into ranges of at most ${maxRange} blocks`,
    );
  }
}

/**
 * The block bounds geth accepts for a polling log filter: both following the head ("latest" or
 * absent), a fixed range, or a fixed start that follows the head. Pending logs do not exist here.
 */
export function checkFilterBounds(filter: LogFilter): void {
  const bound = (value: LogFilter['fromBlock']): number | 'latest' | 'pending' | 'other' => {
    if (value === undefined) return 'latest';
    if (value.kind === 'number') return value.number;
    if (value.tag === 'latest' || value.tag === 'pending') return value.tag;
    return 'other';
  };
  const from = bound(filter.fromBlock);
  const to = bound(filter.toBlock);
  if (from === 'pending' || to === 'pending') throw RpcError.server('pending logs are not supported');
  if (from === 'latest' && to === 'latest') return;
  if (typeof from === 'number' && (to === 'latest' || (typeof to === 'number' && to >= from))) return;
  throw RpcError.server('invalid from and to block combination');
}
