/** eth_simulateV1's request and answer between the RPC layer's terms and the simulator's. */
import type { SimulatePayload, SimulatedBlock, SimulatedCall, SimulatedTransaction } from '../evm/simulate.js';
import type { EthBlock, EthLog, EthTransaction, SimulateRequest, SimulatedBlockOutcome, SimulatedCallOutcome } from '../rpc/eth/backend.js';
import { appCallRequest, appStateOverrides } from './call-request.js';
import { withFields } from '../util/objects.js';

/** The simulator's payload for an RPC request. */
export function simulatePayload(request: SimulateRequest): SimulatePayload {
  return {
    traceTransfers: request.traceTransfers,
    validation: request.validation,
    blocks: request.blocks.map((block) => ({
      ...(block.blockOverrides === undefined ? {} : { blockOverrides: block.blockOverrides }),
      stateOverrides: appStateOverrides(block.stateOverrides),
      ...(block.movePrecompiles === undefined ? {} : { movePrecompiles: block.movePrecompiles.map((m) => ({ from: m.from, to: m.to })) }),
      calls: block.calls.map((call) => ({ ...appCallRequest(call), ...(call.nonce === undefined ? {} : { nonce: call.nonce }) })),
    })),
  };
}

function ethTransaction(tx: SimulatedTransaction, chainId: bigint): EthTransaction {
  return {
    hash: tx.hash,
    type: tx.type,
    nonce: tx.nonce,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    gas: tx.gas,
    ...(tx.gasPrice === undefined ? {} : { gasPrice: tx.gasPrice }),
    ...(tx.maxFeePerGas === undefined ? {} : { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n }),
    input: tx.input,
    chainId,
    ...(tx.accessList === undefined ? {} : { accessList: tx.accessList }),
    v: 0n,
    r: 0n,
    s: 0n,
  };
}

/** A simulated block as the RPC layer renders blocks, its calls' logs placed in it. */
export function simulatedBlockOutcome(block: SimulatedBlock, chainId: bigint): SimulatedBlockOutcome {
  const number = Number(block.number);
  let logIndex = 0;
  const calls = block.calls.map((call: SimulatedCall, index): SimulatedCallOutcome => {
    const tx = block.transactions[index]!;
    const logs: EthLog[] = call.logs.map((log) => withFields(log, {
      blockNumber: number,
      blockHash: block.hash,
      transactionHash: tx.hash,
      transactionIndex: index,
      logIndex: logIndex++,
      blockTimestamp: block.timestamp,
    }));
    return { status: call.status, returnData: call.returnData, gasUsed: call.gasUsed, logs, ...(call.error === undefined ? {} : { error: call.error }) };
  });
  const rendered: EthBlock = {
    number,
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
    miner: block.miner,
    stateRoot: new Uint8Array(32),
    transactionsRoot: block.transactionsRoot,
    receiptsRoot: block.receiptsRoot,
    logsBloom: block.logsBloom,
    gasLimit: block.gasLimit,
    gasUsed: block.gasUsed,
    baseFeePerGas: block.baseFeePerGas,
    extraData: new Uint8Array(),
    size: block.size,
    transactions: block.transactions.map((tx) => ethTransaction(tx, chainId)),
  };
  return { block: rendered, calls };
}
