/**
 * eth_simulateV1 (execution-apis): blocks of calls simulated on the state after a block,
 * rendered as blocks with each call's status, return data, gas, logs and error. The payload
 * is decoded here; the simulation, its bounds and its error codes are the backend's.
 */
import type { BlockOverrides } from '../../../evm/block-context.js';
import { RpcError, expectParams, invalidArgument, type MethodTable } from '../../jsonrpc/index.js';
import type { SimulateRequest, SimulatedBlockRequest, SimulatedCallOutcome } from '../backend.js';
import { formatBlock, formatLog } from '../format.js';
import { bytesHex, quantity } from '../hex.js';
import { parseAddress, parseBlockNumberOrHash, parseBool, parseCallRequest, parseHash, parseQuantity, parseStateOverrides, parseUint64 } from '../params.js';
import { then, type EthMethodContext } from './context.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** geth's simulation BlockOverrides (`withdrawals` and `beaconRoot` are accepted and have no effect here). */
function parseSimBlockOverrides(value: unknown): BlockOverrides | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalidArgument(0, 'json: cannot unmarshal non-object into Go struct field simBlock.blockOverrides of type override.BlockOverrides');
  const out: { -readonly [K in keyof BlockOverrides]: BlockOverrides[K] } = {};
  if (value['number'] != null) out.number = parseQuantity(value['number'], 0);
  if (value['time'] != null) out.time = parseUint64(value['time'], 0);
  if (value['gasLimit'] != null) out.gasLimit = parseUint64(value['gasLimit'], 0);
  if (value['feeRecipient'] != null) out.feeRecipient = parseAddress(value['feeRecipient'], 0);
  if (value['prevRandao'] != null) out.prevRandao = parseHash(value['prevRandao'], 0);
  if (value['baseFeePerGas'] != null) out.baseFee = parseQuantity(value['baseFeePerGas'], 0);
  if (value['blobBaseFee'] != null) out.blobBaseFee = parseQuantity(value['blobBaseFee'], 0);
  return out;
}

function parseSimBlock(value: unknown): SimulatedBlockRequest {
  if (!isObject(value)) throw invalidArgument(0, 'json: cannot unmarshal non-object into Go struct field simOpts.blockStateCalls of type ethapi.simBlock');
  const overrides = value['stateOverrides'];
  const movePrecompiles = isObject(overrides)
    ? Object.entries(overrides).flatMap(([from, o]) =>
        isObject(o) && o['movePrecompileToAddress'] != null ? [{ from: parseAddress(from, 0), to: parseAddress(o['movePrecompileToAddress'], 0) }] : [],
      )
    : [];
  const calls = value['calls'] ?? [];
  if (!Array.isArray(calls)) throw invalidArgument(0, 'json: cannot unmarshal non-array into Go struct field simBlock.calls of type []ethapi.TransactionArgs');
  const blockOverrides = parseSimBlockOverrides(value['blockOverrides']);
  const stateOverrides = parseStateOverrides(overrides, 0);
  return {
    ...(blockOverrides === undefined ? {} : { blockOverrides }),
    ...(stateOverrides === undefined ? {} : { stateOverrides }),
    ...(movePrecompiles.length === 0 ? {} : { movePrecompiles }),
    calls: calls.map((call: unknown) => parseCallRequest(call, 0)),
  };
}

/** eth_simulateV1's first parameter (geth's simOpts). */
export function parseSimulateRequest(value: unknown): SimulateRequest {
  if (!isObject(value)) throw invalidArgument(0, 'json: cannot unmarshal non-object into Go value of type ethapi.simOpts');
  const blocks = value['blockStateCalls'] ?? [];
  if (!Array.isArray(blocks)) throw invalidArgument(0, 'json: cannot unmarshal non-array into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock');
  const flag = (name: string): boolean => (value[name] == null ? false : parseBool(value[name], 0));
  return { blocks: blocks.map(parseSimBlock), traceTransfers: flag('traceTransfers'), validation: flag('validation'), returnFullTransactions: flag('returnFullTransactions') };
}

function formatCall(call: SimulatedCallOutcome): Record<string, unknown> {
  return {
    returnData: bytesHex(call.returnData),
    logs: call.logs.map(formatLog),
    gasUsed: quantity(call.gasUsed),
    status: quantity(call.status),
    ...(call.error === undefined
      ? {}
      : { error: { code: call.error.code, message: call.error.message, ...(call.error.data === undefined ? {} : { data: bytesHex(call.error.data) }) } }),
  };
}

/** eth_simulateV1(payload, block?). */
export function simulateMethods({ backend }: EthMethodContext): MethodTable {
  return {
    eth_simulateV1: (params) => {
      if (backend.simulate === undefined) throw RpcError.methodNotFound('eth_simulateV1');
      expectParams(params, 1, 2);
      const request = parseSimulateRequest(params[0]);
      const at = parseBlockNumberOrHash(params[1] ?? 'latest', 1);
      return then(backend.simulate(request, at), (blocks) =>
        blocks.map(({ block, calls }) => ({ ...formatBlock(block, request.returnFullTransactions), calls: calls.map(formatCall) })),
      );
    },
  };
}
