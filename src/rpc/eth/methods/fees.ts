/** Fee suggestions and eth_feeHistory. */
import { RpcError, expectParams, type MethodTable } from '../../jsonrpc/index.js';
import { tagHeight } from '../../../provider/index.js';
import type { BlockFeeData } from '../backend.js';
import { formatFeeHistory, parseBlockCount, parsePercentiles } from '../fees.js';
import { quantity } from '../hex.js';
import { parseBlockNumber } from '../params.js';
import { then, type EthMethodContext } from './context.js';

/** eth_gasPrice, eth_maxPriorityFeePerGas, eth_blobBaseFee, eth_feeHistory. */
export function feeMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_gasPrice: (params) => (expectParams(params, 0), then(backend.gasPrice(), quantity)),
    eth_maxPriorityFeePerGas: (params) => (expectParams(params, 0), then(backend.maxPriorityFeePerGas(), quantity)),
    eth_blobBaseFee: (params) => (expectParams(params, 0), then(backend.blobBaseFee(), quantity)),
    eth_feeHistory: async (params) => {
      expectParams(params, 2, 3);
      const count = parseBlockCount(params[0], 0);
      const newestId = parseBlockNumber(params[1], 1);
      const percentiles = parsePercentiles(params[2], 2);
      const heights = backend.heights();
      const newest = tagHeight(newestId, heights);
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
    },
  };
}
