/** eth_feeHistory: percentile rewards and gas-used ratios over a range of blocks, as geth computes them. */
import { invalidArgument, RpcError } from '../jsonrpc/index.js';
import type { BlockFeeData } from './backend.js';
import { quantity } from './hex.js';

/** Most blocks one call reports (geth's limit; larger counts are clamped). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/** The block count: a hex quantity or a decimal number/string (geth's math.HexOrDecimal64). */
export function parseBlockCount(value: unknown, index: number): number {
  let count: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) count = BigInt(value);
  else if (typeof value === 'string' && /^0[xX][0-9a-fA-F]+$/.test(value)) count = BigInt(value);
  else if (typeof value === 'string' && /^[0-9]+$/.test(value)) count = BigInt(value);
  if (count === undefined || count >= 1n << 64n) throw invalidArgument(index, `invalid hex or decimal integer ${JSON.stringify(value)}`);
  return count > BigInt(MAX_FEE_HISTORY_BLOCKS) ? MAX_FEE_HISTORY_BLOCKS : Number(count);
}

/** Most reward percentiles one call may ask for: each costs a sort position per block, and 100 covers every integer percentile. */
export const MAX_REWARD_PERCENTILES = 100;

/** Reward percentiles: numbers in [0, 100], strictly increasing, at most 100 of them; geth's messages otherwise. */
export function parsePercentiles(value: unknown, index: number): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.length > MAX_REWARD_PERCENTILES) {
    throw RpcError.server(`too many reward percentiles: ${value.length}, at most ${MAX_REWARD_PERCENTILES} per call`);
  }
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'number')) {
    throw invalidArgument(index, 'json: cannot unmarshal non-number into Go value of type []float64');
  }
  const percentiles = value as number[];
  percentiles.forEach((p, i) => {
    if (p < 0 || p > 100) throw RpcError.server(`invalid reward percentile: ${p.toFixed(6)}`);
    if (i > 0 && p <= percentiles[i - 1]!) {
      throw RpcError.server(`invalid reward percentile: #${i - 1}:${percentiles[i - 1]!.toFixed(6)} >= #${i}:${p.toFixed(6)}`);
    }
  });
  return percentiles;
}

/** The tips at each percentile of gas used in one block (zeros for an empty block). */
export function blockRewards(block: BlockFeeData, percentiles: readonly number[]): bigint[] {
  if (block.transactions.length === 0) return percentiles.map(() => 0n);
  const sorted = [...block.transactions].sort((a, b) => (a.priorityFeePerGas < b.priorityFeePerGas ? -1 : a.priorityFeePerGas > b.priorityFeePerGas ? 1 : 0));
  const rewards: bigint[] = [];
  let txIndex = 0;
  let sumGasUsed = sorted[0]!.gasUsed;
  for (const p of percentiles) {
    const threshold = (Number(block.gasUsed) * p) / 100;
    while (sumGasUsed < threshold && txIndex < sorted.length - 1) {
      txIndex++;
      sumGasUsed += sorted[txIndex]!.gasUsed;
    }
    rewards.push(sorted[txIndex]!.priorityFeePerGas);
  }
  return rewards;
}

/** The eth_feeHistory result for consecutive blocks starting at `oldest`. */
export function formatFeeHistory(oldest: number, blocks: readonly BlockFeeData[], percentiles: readonly number[] | undefined): Record<string, unknown> {
  if (blocks.length === 0) return { oldestBlock: quantity(0), baseFeePerGas: [], gasUsedRatio: [] };
  const baseFees = blocks.map((block) => quantity(block.baseFeePerGas));
  baseFees.push(quantity(blocks[blocks.length - 1]!.nextBaseFeePerGas));
  const result: Record<string, unknown> = {
    oldestBlock: quantity(oldest),
    baseFeePerGas: baseFees,
    gasUsedRatio: blocks.map((block) => (block.gasLimit === 0n ? 0 : Number(block.gasUsed) / Number(block.gasLimit))),
  };
  if (percentiles !== undefined) result['reward'] = blocks.map((block) => blockRewards(block, percentiles).map(quantity));
  return result;
}
