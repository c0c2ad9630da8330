/** The eth_/net_/web3_ method table over an EthBackend. */
import { Logger } from '../../log/logger.js';
import { ErrorCode, expectParams, invalidArgument, RpcError, type MethodTable, type RequestContext } from '../jsonrpc/index.js';
import type { BlockFeeData, EthBackend, EthBlock } from './backend.js';
import { backendFailure, headerForHashNotFound, headerNotFound, notificationsUnsupported, proofsUnsupported, StatePrunedError } from './errors.js';
import { formatFeeHistory, parseBlockCount, parsePercentiles } from './fees.js';
import { checkLogRange, parseLogCriteria, parseLogFilter } from './filters.js';
import { formatBlock, formatLog, formatReceipt, formatStorageWord, formatTransaction } from './format.js';
import { bytesHex, quantity } from './hex.js';
import {
  parseAddress,
  parseBlockNumber,
  parseBlockNumberOrHash,
  parseBool,
  parseCallRequest,
  parseData,
  parseHash,
  parseStateOverrides,
  parseStorageSlot,
  type BlockSelector,
  type NumberOrTag,
} from './params.js';
import { revertError } from './revert.js';
import { SubscriptionHub } from './subscriptions.js';

/** Settings of the eth method table. */
export interface EthMethodsOptions {
  /** `max-log-block-range`: widest eth_getLogs range. */
  maxLogBlockRange: number;
  /** Node version for web3_clientVersion, e.g. "v0.1.0". */
  version: string;
  logger?: Logger;
}

/** The method table and the subscription registry behind eth_subscribe. */
export interface EthRpc {
  readonly methods: MethodTable;
  readonly subscriptions: SubscriptionHub;
}

/** web3_clientVersion's text: strata/<version>/<os>-<arch>/node<version>. */
export function clientVersion(version: string): string {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  return `strata/${version}/${process.platform}-${arch}/node${process.versions.node}`;
}

/** Builds the eth_/net_/web3_ methods over `backend`. */
export function createEthMethods(backend: EthBackend, options: EthMethodsOptions): EthRpc {
  const logger = options.logger ?? new Logger({ base: { module: 'rpc-eth' } });
  const subscriptions = new SubscriptionHub(backend, logger);
  const version = clientVersion(options.version);

  /** A tag or number as a height, or undefined for a number past the head. */
  function tagHeight(selector: NumberOrTag): number | undefined {
    const heights = backend.heights();
    if (selector.kind === 'number') return selector.number <= heights.latest ? selector.number : undefined;
    switch (selector.tag) {
      case 'earliest':
        return heights.earliest;
      case 'safe':
        return heights.safe;
      case 'finalized':
        return heights.finalized;
      default:
        return heights.latest;
    }
  }

  /** The height whose state a read uses; errors as geth for unknown blocks, and for pruned state. */
  async function stateHeight(selector: BlockSelector): Promise<number> {
    let height: number;
    if (selector.kind === 'hash') {
      const block = await backend.blockByHash(selector.hash);
      if (block === null) throw headerForHashNotFound();
      height = block.number;
    } else {
      const resolved = tagHeight(selector);
      if (resolved === undefined) throw headerNotFound();
      height = resolved;
    }
    const earliestState = backend.heights().earliestState;
    if (height < earliestState) throw new StatePrunedError(height, earliestState);
    return height;
  }

  async function blockBySelector(selector: BlockSelector): Promise<EthBlock | null> {
    if (selector.kind === 'hash') return backend.blockByHash(selector.hash);
    const height = tagHeight(selector);
    return height === undefined ? null : backend.blockByNumber(height);
  }

  /** Wraps a handler so backend errors become their RPC errors. */
  function guarded(handler: (params: unknown[], ctx: RequestContext) => Promise<unknown>): (params: unknown[], ctx: RequestContext) => Promise<unknown> {
    return (params, ctx) =>
      handler(params, ctx).catch((thrown: unknown) => {
        throw backendFailure(thrown);
      });
  }

  const methods: MethodTable = {
    web3_clientVersion: (params) => (expectParams(params, 0), version),
    net_version: (params) => (expectParams(params, 0), backend.chainId().toString(10)),
    net_listening: (params) => (expectParams(params, 0), true),
    eth_chainId: (params) => (expectParams(params, 0), quantity(backend.chainId())),
    eth_blockNumber: (params) => (expectParams(params, 0), quantity(backend.heights().latest)),
    eth_syncing: guarded(async (params) => {
      expectParams(params, 0);
      const status = await backend.syncing();
      if (status === false) return false;
      return { startingBlock: quantity(status.startingBlock), currentBlock: quantity(status.currentBlock), highestBlock: quantity(status.highestBlock) };
    }),
    eth_gasPrice: guarded(async (params) => (expectParams(params, 0), quantity(await backend.gasPrice()))),
    eth_maxPriorityFeePerGas: guarded(async (params) => (expectParams(params, 0), quantity(await backend.maxPriorityFeePerGas()))),

    eth_getBalance: guarded(async (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      const height = await stateHeight(parseBlockNumberOrHash(params[1] ?? 'latest', 1));
      return quantity(await backend.getBalance(address, height));
    }),
    eth_getTransactionCount: guarded(async (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      const selector = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      if (selector.kind === 'tag' && selector.tag === 'pending') return quantity(await backend.getPendingNonce(address));
      return quantity(await backend.getNonce(address, await stateHeight(selector)));
    }),
    eth_getCode: guarded(async (params) => {
      expectParams(params, 1, 2);
      const address = parseAddress(params[0], 0);
      const height = await stateHeight(parseBlockNumberOrHash(params[1] ?? 'latest', 1));
      return bytesHex(await backend.getCode(address, height));
    }),
    eth_getStorageAt: guarded(async (params) => {
      expectParams(params, 2, 3);
      const address = parseAddress(params[0], 0);
      const slot = parseStorageSlot(params[1], 1);
      const height = await stateHeight(parseBlockNumberOrHash(params[2] ?? 'latest', 2));
      return formatStorageWord(await backend.getStorageAt(address, slot, height));
    }),
    eth_getProof: (params) => {
      expectParams(params, 2, 3);
      parseAddress(params[0], 0);
      throw proofsUnsupported();
    },

    eth_call: guarded(async (params) => {
      expectParams(params, 1, 4);
      const request = parseCallRequest(params[0], 0);
      const height = await stateHeight(parseBlockNumberOrHash(params[1] ?? 'latest', 1));
      const overrides = parseStateOverrides(params[2], 2);
      const outcome = await backend.call(request, height, overrides);
      if (outcome.status === 'reverted') throw revertError(outcome.returnData);
      if (outcome.status === 'failed') throw RpcError.server(outcome.message);
      return bytesHex(outcome.returnData);
    }),
    eth_estimateGas: guarded(async (params) => {
      expectParams(params, 1, 3);
      const request = parseCallRequest(params[0], 0);
      const height = await stateHeight(parseBlockNumberOrHash(params[1] ?? 'latest', 1));
      const overrides = parseStateOverrides(params[2], 2);
      const outcome = await backend.estimateGas(request, height, overrides);
      if (outcome.status === 'reverted') throw revertError(outcome.returnData);
      if (outcome.status === 'failed') throw RpcError.server(outcome.message);
      return quantity(outcome.gas);
    }),
    eth_sendRawTransaction: guarded(async (params) => {
      expectParams(params, 1);
      const raw = parseData(params[0], 0);
      if (raw.length === 0) throw RpcError.server('typed transaction too short');
      return bytesHex(await backend.sendRawTransaction(raw));
    }),

    eth_getBlockByNumber: guarded(async (params) => {
      expectParams(params, 2);
      const selector = parseBlockNumber(params[0], 0);
      const full = parseBool(params[1], 1);
      const block = await blockBySelector(selector);
      return block === null ? null : formatBlock(block, full);
    }),
    eth_getBlockByHash: guarded(async (params) => {
      expectParams(params, 2);
      const hash = parseHash(params[0], 0);
      const full = parseBool(params[1], 1);
      const block = await backend.blockByHash(hash);
      return block === null ? null : formatBlock(block, full);
    }),
    eth_getBlockTransactionCountByNumber: guarded(async (params) => {
      expectParams(params, 1);
      const selector = parseBlockNumber(params[0], 0);
      if (backend.blockTransactionCount) {
        const height = tagHeight(selector);
        const count = height === undefined ? null : await backend.blockTransactionCount(height);
        return count === null ? null : quantity(count);
      }
      const block = await blockBySelector(selector);
      return block === null ? null : quantity(block.transactions.length);
    }),
    eth_getBlockTransactionCountByHash: guarded(async (params) => {
      expectParams(params, 1);
      const hash = parseHash(params[0], 0);
      if (backend.blockTransactionCountByHash) {
        const count = await backend.blockTransactionCountByHash(hash);
        return count === null ? null : quantity(count);
      }
      const block = await backend.blockByHash(hash);
      return block === null ? null : quantity(block.transactions.length);
    }),
    eth_getTransactionByHash: guarded(async (params) => {
      expectParams(params, 1);
      const located = await backend.transactionByHash(parseHash(params[0], 0));
      return located === null ? null : formatTransaction(located.tx, located.position);
    }),
    eth_getTransactionReceipt: guarded(async (params) => {
      expectParams(params, 1);
      const receipt = await backend.receiptByHash(parseHash(params[0], 0));
      return receipt === null ? null : formatReceipt(receipt);
    }),

    eth_getLogs: guarded(async (params) => {
      expectParams(params, 1);
      const filter = parseLogFilter(params[0], 0);
      let from: number;
      let to: number;
      if (filter.blockHash !== undefined) {
        const block = await backend.blockByHash(filter.blockHash);
        if (block === null) throw RpcError.server('unknown block');
        from = to = block.number;
      } else {
        const head = backend.heights().latest;
        from = filter.fromBlock === undefined ? head : (tagHeightOrNumber(filter.fromBlock));
        to = filter.toBlock === undefined ? head : (tagHeightOrNumber(filter.toBlock));
        checkLogRange(from, to, head, options.maxLogBlockRange);
      }
      const logs = await backend.getLogs({ fromBlock: from, toBlock: to, addresses: filter.addresses, topics: filter.topics });
      return logs.map(formatLog);
    }),

    eth_feeHistory: guarded(async (params) => {
      expectParams(params, 2, 3);
      const count = parseBlockCount(params[0], 0);
      const newestSelector = parseBlockNumber(params[1], 1);
      const percentiles = parsePercentiles(params[2], 2);
      const heights = backend.heights();
      const newest = newestSelector.kind === 'number' ? newestSelector.number : tagHeight(newestSelector)!;
      if (newest > heights.latest) throw RpcError.server('request beyond head block');
      if (count === 0) return formatFeeHistory(0, [], percentiles);
      const oldest = Math.max(heights.earliest, newest - count + 1);
      const blocks: BlockFeeData[] = [];
      for (let height = oldest; height <= newest; height++) {
        const data = await backend.feeData(height);
        if (data === null) break;
        blocks.push(data);
      }
      return formatFeeHistory(oldest, blocks, percentiles);
    }),

    eth_subscribe: (params, ctx) => {
      if (ctx.connection === undefined) throw notificationsUnsupported();
      expectParams(params, 1, 2);
      const kind = params[0];
      if (typeof kind !== 'string') throw invalidArgument(0, 'json: cannot unmarshal non-string into Go value of type string');
      if (kind === 'newHeads') {
        expectParams(params, 1);
        return subscriptions.subscribe(ctx.connection, 'newHeads', { addresses: [], topics: [] });
      }
      if (kind === 'logs') return subscriptions.subscribe(ctx.connection, 'logs', parseLogCriteria(params[1], 1));
      throw new RpcError(ErrorCode.MethodNotFound, `no ${JSON.stringify(kind)} subscription in eth namespace`);
    },
    eth_unsubscribe: (params, ctx) => {
      if (ctx.connection === undefined) throw notificationsUnsupported();
      expectParams(params, 1);
      const id = params[0];
      if (typeof id !== 'string') throw invalidArgument(0, 'json: cannot unmarshal non-string into Go value of type rpc.ID');
      if (!subscriptions.unsubscribe(ctx.connection, id)) throw RpcError.server('subscription not found');
      return true;
    },
  };

  /** A range end of eth_getLogs: numbers past the head are kept so the range check can name them. */
  function tagHeightOrNumber(selector: NumberOrTag): number {
    return selector.kind === 'number' ? selector.number : tagHeight(selector)!;
  }

  return { methods, subscriptions };
}
