/**
 * The debug_ methods' backend of a running node: the rpc layer's DebugBackend over the trace
 * service, converting between the two layers' types.
 */
import type { BlockStore, StoredReceipt } from '../chain/block-store.js';
import type { StoredBlock } from '../chain/block.js';
import type { BlockStoreLookup, BlockTraceEntry, DebugBackend, StateAccess, StateAccessReceipt, TraceCallRequest, TraceOptions } from '../rpc/debug/index.js';
import type { ChainProvider } from '../provider/index.js';
import type { JsonValue } from '../trace/index.js';
import type { StateAccessTrace, TraceService } from '../trace/service/index.js';
import { appCallRequest, appStateOverrides } from './call-request.js';
import { bytesHex, quantity } from '../util/hex.js';

function receiptOf(r: StoredReceipt): StateAccessReceipt {
  return {
    blockNumber: r.blockHeight,
    contractAddress: r.contractAddress,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    from: r.from,
    to: r.to,
    gasUsed: r.gasUsed,
    status: r.status,
    type: r.txType,
    transactionHash: r.txHash,
    transactionIndex: r.txIndex,
  };
}

/** A stored block as debug_traceStateAccess reports its lookup. */
function blockLookupResponse(block: StoredBlock): JsonValue {
  const h = block.header;
  return {
    hash: bytesHex(block.hash),
    height: String(h.height),
    time: new Date(h.timeMs).toISOString(),
    proposer: bytesHex(h.proposer),
    lastBlockHash: bytesHex(h.lastBlockHash),
    appHash: bytesHex(h.appHash),
    gasUsed: quantity(h.gasUsed),
    gasLimit: quantity(h.gasLimit),
    baseFee: quantity(h.baseFee),
    txs: block.txs.length,
  };
}

/** The trace as Sei reports it: the store reads, the two block-store lookups that found the transaction, the receipt. */
function stateAccessOf(trace: StateAccessTrace): StateAccess {
  const { location, block } = trace;
  const lookups: BlockStoreLookup[] = [
    { endpoint: 'Tx', arguments: [bytesHex(trace.txHash)], response: { height: String(location.height), index: location.index } },
    { endpoint: 'Block', arguments: [String(location.height)], response: blockLookupResponse(block) },
  ];
  return { modules: trace.modules, lookups, receipt: receiptOf(trace.receipt) };
}

/** DebugBackend over one node's trace service. */
export class NodeDebugBackend implements DebugBackend {
  constructor(
    private readonly traces: TraceService,
    private readonly chain: ChainProvider,
    /** For the oldest stored block, which the `earliest` tag of debug_traceCall names. */
    private readonly store: BlockStore,
  ) {}

  latestHeight(): number {
    return this.chain.blocks.latestHeight();
  }

  earliestHeight(): number {
    return this.store.earliestHeight() ?? 0;
  }

  traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined> {
    return this.traces.traceTransaction(hash, options);
  }

  traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.traces.traceBlock({ height }, options);
  }

  traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined> {
    return this.traces.traceBlock({ hash }, options);
  }

  traceCall(request: TraceCallRequest, options: TraceOptions): Promise<JsonValue | undefined> {
    return this.traces.traceCall(
      {
        call: appCallRequest(request.call),
        block: request.block,
        stateOverrides: appStateOverrides(request.stateOverrides),
        blockOverrides: request.blockOverrides,
        txIndex: request.txIndex,
      },
      options,
    );
  }

  async traceStateAccess(hash: Uint8Array): Promise<StateAccess | undefined> {
    const trace = await this.traces.traceStateAccess(hash);
    return trace === undefined ? undefined : stateAccessOf(trace);
  }
}
