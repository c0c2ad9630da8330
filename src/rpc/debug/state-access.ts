/**
 * debug_traceStateAccess's response (StateAccessResponse): the store-level reads one
 * transaction's execution made per module, the block-store lookups the method made, and the
 * stored receipt. Only the fields Sei's fixtures carry are produced: per module `reads` and
 * `has`; the newer per-module `stats`, `iterators`, `truncated` and the aggregate `stats` are
 * timing and iteration details of Sei's store tracer that this node does not collect.
 */
import type { JsonValue } from '../../trace/index.js';
import { bytesHex } from '../../util/hex.js';

/** What one module store was asked: hex keys and values without 0x, "" for an absent value. */
export interface ModuleFootprint {
  readonly reads: ReadonlyMap<string, string>;
  readonly has: readonly string[];
}

/** One block-store lookup the method made, as Sei records its Tendermint RPC calls. */
export interface BlockStoreLookup {
  readonly endpoint: string;
  readonly arguments: readonly string[];
  readonly response: JsonValue;
}

/** The stored receipt of the transaction. */
export interface StateAccessReceipt {
  readonly blockNumber: number;
  readonly contractAddress: Uint8Array | null;
  readonly cumulativeGasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  readonly gasUsed: bigint;
  /** 1 success, 0 failure. */
  readonly status: number;
  readonly type: number;
  readonly transactionHash: Uint8Array;
  readonly transactionIndex: number;
}

/** Everything debug_traceStateAccess reports about one transaction. */
export interface StateAccess {
  /** Per module store name. */
  readonly modules: ReadonlyMap<string, ModuleFootprint>;
  readonly lookups: readonly BlockStoreLookup[];
  readonly receipt: StateAccessReceipt;
}

function quantity(value: bigint | number): string {
  return `0x${value.toString(16)}`;
}

function formatReceipt(r: StateAccessReceipt): JsonValue {
  return {
    blockNumber: quantity(r.blockNumber),
    contractAddress: r.contractAddress === null ? null : bytesHex(r.contractAddress),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    effectiveGasPrice: quantity(r.effectiveGasPrice),
    from: bytesHex(r.from),
    to: r.to === null ? null : bytesHex(r.to),
    gasUsed: quantity(r.gasUsed),
    status: quantity(r.status),
    type: quantity(r.type),
    transactionHash: bytesHex(r.transactionHash),
    transactionIndex: quantity(r.transactionIndex),
  };
}

/** The StateAccessResponse JSON: `{app: {modules}, tendermint: {traces}, receipt: {traces}}`. */
export function formatStateAccess(access: StateAccess): JsonValue {
  const modules: { [name: string]: JsonValue } = {};
  for (const [name, footprint] of access.modules) {
    modules[name] = { reads: Object.fromEntries(footprint.reads), has: [...footprint.has] };
  }
  return {
    app: { modules },
    tendermint: { traces: access.lookups.map((l) => ({ endpoint: l.endpoint, arguments: [...l.arguments], response: l.response })) },
    receipt: { traces: [formatReceipt(access.receipt)] },
  };
}
