/**
 * eth_simulateV1 as geth runs it: a chain of simulated blocks on the state after a base
 * block, each with its own header overrides, state overrides and calls, every call seeing
 * the effects of the ones before it. Nothing is written. Without `validation` calls skip the
 * nonce and fee checks and the base fee reads 0; with it they are checked as transactions.
 * `traceTransfers` adds an ERC-20-style Transfer log from 0xeeee…eeee for each value moved.
 * Simulated blocks are hashed over their own fields; they are not blocks of this chain, but
 * BLOCKHASH inside a later simulated block answers their hashes, as geth's does.
 */
import { getActivePrecompiles, type CustomPrecompile, type EVMMockBlockchainInterface, type EVM, type InterpreterStep, type Message, type EVMResult } from '@ethereumjs/evm';
import { RLP } from '@ethereumjs/rlp';
import { Address, bigIntToBytes, bigIntToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util';
import { Bloom, createVM, encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import type { TypedTransaction } from '@ethereumjs/tx';

import { coinbaseOf, evmBlock, type BlockContext, type BlockOverrides } from './block-context.js';
import { applyOverrides, messageTx, refusalMessage, type CallEnvironment, type CallRequest, type StateOverrides } from './call.js';
import { vmCommon } from './common.js';
import { ExecutionDeadlineError, executionDeadlineOf, setExecutionDeadline } from './execution-deadline.js';
import { keccak256 } from '../util/keccak.js';
import { gethMessageError } from './errors.js';
import { gethEvmOptions } from './returndata-bounds.js';
import { revertReason as revertReasonOf } from './revert-reason.js';
import type { OverlayStateManager } from './state-manager.js';

/** geth's cap on the blocks of one simulation (gaps filled in included). */
export const MAX_SIMULATE_BLOCKS = 256;
/** The most calls one simulation runs, over all its blocks. */
export const MAX_SIMULATE_CALLS = 1000;
/** Seconds between simulated blocks whose timestamp is not given. */
const TIMESTAMP_INCREMENT = 12n;

/** A simulated call: eth_call's object plus an optional nonce. */
export interface SimulatedCallRequest extends CallRequest {
  nonce?: bigint;
}

/** One entry of `blockStateCalls`. */
export interface SimulatedBlockInput {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  /** `movePrecompileToAddress` of the state overrides: the precompile at `from` answers at `to` in this block instead. */
  movePrecompiles?: Array<{ from: Uint8Array; to: Uint8Array }>;
  calls: SimulatedCallRequest[];
}

/** eth_simulateV1's first parameter. */
export interface SimulatePayload {
  blocks: SimulatedBlockInput[];
  traceTransfers: boolean;
  validation: boolean;
}

/** The block the simulation starts after. */
export interface SimulationBase {
  number: bigint;
  hash: Uint8Array;
  /** Seconds. */
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  coinbase: Uint8Array;
}

/** A log of a simulated call (its position is given by the block and call it belongs to). */
export interface SimulatedLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** The outcome of one simulated call. */
export interface SimulatedCall {
  status: 0 | 1;
  returnData: Uint8Array;
  gasUsed: bigint;
  logs: SimulatedLog[];
  /** geth's error object: -32000 and the revert data for a revert, -32015 for any other EVM failure. */
  error?: { code: number; message: string; data?: Uint8Array };
}

/** A simulated call as the unsigned transaction it was run as. */
export interface SimulatedTransaction {
  hash: Uint8Array;
  type: number;
  nonce: bigint;
  from: Uint8Array;
  to: Uint8Array | null;
  value: bigint;
  gas: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  input: Uint8Array;
  accessList?: Array<{ address: Uint8Array; storageKeys: Uint8Array[] }>;
}

/** One simulated block with its calls' outcomes. */
export interface SimulatedBlock {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas: bigint;
  miner: Uint8Array;
  prevRandao: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  size: bigint;
  transactions: SimulatedTransaction[];
  calls: SimulatedCall[];
}

/** A simulation refused as a whole, with the execution-apis error code geth uses. */
export class SimulationError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = 'SimulationError';
  }
}

/** ERC-7528's address for the native currency, the emitter of traced transfers. */
const TRANSFER_EMITTER = Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex');
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex');
const ZERO_HASH = new Uint8Array(32);

interface PlannedBlock {
  overrides: BlockOverrides & { number: bigint; time: bigint };
  stateOverrides: StateOverrides;
  movePrecompiles: Array<{ from: Uint8Array; to: Uint8Array }>;
  calls: SimulatedCallRequest[];
}

/** geth's sanitizeChain: numbers and timestamps increasing, gaps filled with empty blocks, at most 256 past the base. */
function plan(base: SimulationBase, blocks: readonly SimulatedBlockInput[]): PlannedBlock[] {
  if (blocks.length === 0) throw new SimulationError(-32602, 'empty input');
  if (blocks.length > MAX_SIMULATE_BLOCKS) throw new SimulationError(-38026, 'too many blocks');
  const calls = blocks.reduce((n, b) => n + b.calls.length, 0);
  if (calls > MAX_SIMULATE_CALLS) throw new SimulationError(-38026, `too many calls: ${calls} > ${MAX_SIMULATE_CALLS}`);
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const block of blocks) {
    const number = block.blockOverrides?.number ?? prevNumber + 1n;
    if (number <= prevNumber) throw new SimulationError(-38020, `block numbers must be in order: ${number} <= ${prevNumber}`);
    if (number - base.number > BigInt(MAX_SIMULATE_BLOCKS)) throw new SimulationError(-38026, 'too many blocks');
    for (let gap = prevNumber + 1n; gap < number; gap++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ overrides: { number: gap, time: prevTime }, stateOverrides: [], movePrecompiles: [], calls: [] });
    }
    prevNumber = number;
    const time = block.blockOverrides?.time ?? prevTime + TIMESTAMP_INCREMENT;
    if (time <= prevTime) throw new SimulationError(-38021, `block timestamps must be in order: ${time} <= ${prevTime}`);
    prevTime = time;
    out.push({ overrides: { ...block.blockOverrides, number, time }, stateOverrides: block.stateOverrides ?? [], movePrecompiles: block.movePrecompiles ?? [], calls: block.calls });
  }
  return out;
}

/** geth's simulation code for a message the VM refused (nonce, funds, intrinsic gas, fees, sender). */
function refusal(error: unknown, from: Address, request: CallRequest): SimulationError {
  const text = error instanceof Error ? error.message : String(error);
  const wrongNonce = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(text);
  if (wrongNonce) {
    const [state, tx] = [BigInt(wrongNonce[1]!), BigInt(wrongNonce[2]!)];
    return tx < state
      ? new SimulationError(-38010, `nonce too low: address ${from.toString()}, tx: ${tx} state: ${state}`)
      : new SimulationError(-38011, `nonce too high: address ${from.toString()}, tx: ${tx} state: ${state}`);
  }
  if (/not EOA/.test(text)) return new SimulationError(-38024, `sender not an eoa: address ${from.toString()}, len(code): nonzero`);
  if (/initcode size of this transaction is too large: it is (\d+) while the max is (\d+)/.test(text)) {
    const m = /it is (\d+) while the max is (\d+)/.exec(text)!;
    return new SimulationError(-38025, `max initcode size exceeded: code size ${m[1]} limit ${m[2]}`);
  }
  const message = refusalMessage(error, from, request);
  if (message.startsWith('insufficient funds')) return new SimulationError(-38014, message);
  if (message.startsWith('intrinsic gas too low')) return new SimulationError(-38013, message);
  // geth answers a fee cap below the base fee as invalid params (the execution-apis list has -38012 for it).
  if (message.startsWith('max fee per gas less than block base fee')) return new SimulationError(-32602, message);
  return new SimulationError(-32603, message);
}

/** Records transfers and logs in execution order, dropping those of frames that fail (geth's simulation log tracer). */
class TransferTracer {
  readonly #frames: SimulatedLog[][] = [];
  #pendingCreate: SimulatedLog | undefined;
  logs: SimulatedLog[] = [];

  readonly onMessage = (message: Message): void => {
    const frame: SimulatedLog[] = [];
    this.#frames.push(frame);
    if (message.value > 0n && !message.delegatecall) {
      const log: SimulatedLog = {
        address: TRANSFER_EMITTER,
        topics: [TRANSFER_TOPIC, setLengthLeft(message.caller.bytes, 32), setLengthLeft(message.to?.bytes ?? new Uint8Array(20), 32)],
        data: setLengthLeft(bigIntToBytes(message.value), 32),
      };
      if (message.to === undefined) this.#pendingCreate = log;
      frame.push(log);
    }
  };

  readonly onResult = (result: EVMResult): void => {
    const frame = this.#frames.pop() ?? [];
    if (this.#pendingCreate !== undefined && result.createdAddress !== undefined && frame.includes(this.#pendingCreate)) {
      this.#pendingCreate.topics[2] = setLengthLeft(result.createdAddress.bytes, 32);
      this.#pendingCreate = undefined;
    }
    if (result.execResult.exceptionError !== undefined) return;
    const parent = this.#frames[this.#frames.length - 1];
    if (parent !== undefined) parent.push(...frame);
    else this.logs = frame;
  };

  readonly onStep = (step: InterpreterStep): void => {
    const op = step.opcode.name;
    if (!op.startsWith('LOG')) return;
    const topicCount = Number(op.slice(3));
    const stack = step.stack;
    const offset = Number(stack[stack.length - 1]!);
    const length = Number(stack[stack.length - 2]!);
    const topics: Uint8Array[] = [];
    for (let i = 0; i < topicCount; i++) topics.push(setLengthLeft(bigIntToBytes(stack[stack.length - 3 - i]!), 32));
    const data = new Uint8Array(length);
    data.set(step.memory.subarray(offset, offset + length));
    this.#frames[this.#frames.length - 1]?.push({ address: step.address.bytes, topics, data });
  };
}

function blockContext(planned: PlannedBlock, prev: { gasLimit: bigint; coinbase: Uint8Array }, baseFee: bigint): BlockContext {
  return {
    height: Number(planned.overrides.number),
    timeMs: Number(planned.overrides.time) * 1000,
    proposer: planned.overrides.feeRecipient ?? prev.coinbase,
    baseFee,
    gasLimit: planned.overrides.gasLimit ?? prev.gasLimit,
  };
}

function hashOf(tx: TypedTransaction): Uint8Array {
  return keccak256(tx.serialize());
}

function describe(tx: TypedTransaction, from: Address): SimulatedTransaction {
  const json = tx.toJSON();
  return {
    hash: hashOf(tx),
    type: tx.type,
    nonce: tx.nonce,
    from: from.bytes,
    to: tx.to?.bytes ?? null,
    value: tx.value,
    gas: tx.gasLimit,
    ...('gasPrice' in tx && json.gasPrice !== undefined ? { gasPrice: BigInt(json.gasPrice) } : {}),
    ...(json.maxFeePerGas !== undefined ? { maxFeePerGas: BigInt(json.maxFeePerGas), maxPriorityFeePerGas: BigInt(json.maxPriorityFeePerGas ?? '0x0') } : {}),
    input: tx.data,
    accessList: (json.accessList ?? []).map((e) => ({ address: Buffer.from(e.address.slice(2), 'hex'), storageKeys: e.storageKeys.map((k) => Buffer.from(k.slice(2), 'hex')) })),
  };
}

function addressKey(address: Uint8Array): string {
  return Buffer.from(address).toString('hex');
}

/**
 * The precompile changes of a block's `movePrecompileToAddress` overrides, checked as geth
 * checks them: the source must be a precompile, not moved onto itself (-38022), and no two
 * moves, nor a move and another override, may target the same address (-38023).
 */
function precompileMoves(env: CallEnvironment, block: PlannedBlock): CustomPrecompile[] {
  if (block.movePrecompiles.length === 0) return [];
  const active = getActivePrecompiles(env.common);
  const overridden = new Set(block.stateOverrides.map((o) => addressKey(o.address)));
  const targets = new Set<string>();
  const changes: CustomPrecompile[] = [];
  for (const move of block.movePrecompiles) {
    const [from, to] = [addressKey(move.from), addressKey(move.to)];
    const precompile = active.get(from) ?? active.get(`0x${from}`);
    if (precompile === undefined) throw new SimulationError(-32602, `account 0x${from} is not a precompile`);
    if (from === to) throw new SimulationError(-38022, `account 0x${from} is moved onto itself`);
    if (targets.has(to) || (overridden.has(to) && !block.movePrecompiles.some((m) => addressKey(m.from) === to))) {
      throw new SimulationError(-38023, `account 0x${to} is already overridden`);
    }
    targets.add(to);
    changes.push({ address: `0x${to}`, function: precompile });
  }
  // A source also moved onto is replaced by that move, not removed.
  for (const move of block.movePrecompiles) {
    const from = addressKey(move.from);
    if (!targets.has(from)) changes.push({ address: `0x${from}` });
  }
  return changes;
}

/**
 * The ancestors BLOCKHASH sees in a simulated block: the simulated blocks already built
 * (by height), and below them the chain the VM was made with.
 */
function simulatedAncestors(chain: EVMMockBlockchainInterface, simulated: ReadonlyMap<number, Uint8Array>): EVMMockBlockchainInterface {
  const ancestors: EVMMockBlockchainInterface = {
    getBlock: async (height: number) => {
      const hash = simulated.get(height);
      return hash === undefined ? chain.getBlock(height) : { hash: () => hash };
    },
    putBlock: async () => undefined,
    shallowCopy: () => ancestors,
  };
  return ancestors;
}

/** The VM's EVM as the class it is built as (the VM's interface type does not show its blockchain). */
function evmOf(vm: VM): EVM {
  return vm.evm as EVM;
}

/** Runs the simulation on `env` (its view is the base block's state); throws SimulationError for a refused one. */
export async function simulate(env: CallEnvironment, base: SimulationBase, payload: SimulatePayload): Promise<SimulatedBlock[]> {
  const planned = plan(base, payload.blocks);
  let gasBudget = env.gasCap > 0n ? env.gasCap : undefined;
  return env.vms.run(env.view, async ({ vm, state }) => {
    const simulatedHashes = new Map<number, Uint8Array>();
    const chain = evmOf(vm).blockchain;
    const ancestors = simulatedAncestors(chain, simulatedHashes);
    // The pooled VM gets its own ancestors back whatever happens, so later calls see only the chain.
    evmOf(vm).blockchain = ancestors;
    try {
      return await simulateBlocks(vm, state, ancestors, simulatedHashes);
    } finally {
      evmOf(vm).blockchain = chain;
    }
  }, env.deadlineAt);

  async function simulateBlocks(vm: VM, state: OverlayStateManager, ancestors: EVMMockBlockchainInterface, simulatedHashes: Map<number, Uint8Array>): Promise<SimulatedBlock[]> {
    const results: SimulatedBlock[] = [];
    let parent = { hash: base.hash, gasLimit: base.gasLimit, coinbase: base.coinbase, baseFee: base.baseFee };
    for (const block of planned) {
      const moves = precompileMoves(env, block);
      await applyOverrides(state, block.stateOverrides);
      // Moved precompiles need an EVM made with them, over the same state, for this block only.
      const blockVm = moves.length === 0 ? vm : await createVM({ common: vmCommon(env.common), stateManager: state, blockchain: vm.blockchain, evmOpts: { ...gethEvmOptions(env.common), customPrecompiles: moves } });
      evmOf(blockVm).blockchain = ancestors;
      if (blockVm !== vm) setExecutionDeadline(blockVm.evm, executionDeadlineOf(vm.evm));
      const baseFee = block.overrides.baseFee ?? (payload.validation ? parent.baseFee : 0n);
      const ctx = blockContext(block, parent, baseFee);
      const header = evmBlock(env.common, ctx);
      // PREVRANDAO reads the header's mix hash; the block is built unfrozen, so it can be told.
      if (block.overrides.prevRandao !== undefined) Object.defineProperty(header.header, 'mixHash', { value: block.overrides.prevRandao });
      const calls: SimulatedCall[] = [];
      const transactions: SimulatedTransaction[] = [];
      const receipts: Uint8Array[] = [];
      const bloom = new Bloom(undefined, env.common);
      let gasUsed = 0n;
      for (const request of block.calls) {
        const from = new Address(request.from ?? new Uint8Array(20));
        const nonce = request.nonce ?? state.getAccountSync(from)?.nonce ?? 0n;
        const gas = request.gas ?? ctx.gasLimit - gasUsed;
        if (gasUsed + gas > ctx.gasLimit) throw new SimulationError(-38015, `block gas limit reached: ${gasUsed + gas} >= ${ctx.gasLimit}`);
        if (gasBudget !== undefined) {
          if (gas > gasBudget) throw new SimulationError(-38026, `gas cap exceeded: the calls ask for more than the node's gas-cap of ${env.gasCap} in all`);
          gasBudget -= gas;
        }
        const tx = messageTx(env.common, request, from, nonce, gas);
        const tracer = payload.traceTransfers ? new TransferTracer() : undefined;
        if (tracer) {
          blockVm.evm.events!.on('beforeMessage', tracer.onMessage);
          blockVm.evm.events!.on('afterMessage', tracer.onResult);
          blockVm.evm.events!.on('step', tracer.onStep);
        }
        let outcome;
        try {
          outcome = await runTx(blockVm, { tx, block: header, skipNonce: !payload.validation, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
        } catch (error) {
          if (error instanceof ExecutionDeadlineError) throw error;
          throw refusal(error, from, request);
        } finally {
          if (tracer) {
            blockVm.evm.events!.off('beforeMessage', tracer.onMessage);
            blockVm.evm.events!.off('afterMessage', tracer.onResult);
            blockVm.evm.events!.off('step', tracer.onStep);
          }
        }
        if (gasBudget !== undefined) gasBudget += gas - outcome.totalGasSpent;
        gasUsed += outcome.totalGasSpent;
        const logs: SimulatedLog[] = tracer ? tracer.logs : (outcome.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
        const failure = gethMessageError(outcome.execResult, request.to, request.data ?? new Uint8Array());
        const returnData = outcome.execResult.returnValue;
        calls.push({
          status: failure === undefined ? 1 : 0,
          returnData,
          gasUsed: outcome.totalGasSpent,
          logs: failure === undefined ? logs : [],
          ...(failure === undefined
            ? {}
            : failure === 'execution reverted'
              ? { error: { code: -32000, message: revertMessage(returnData), data: returnData } }
              : { error: { code: -32015, message: failure } }),
        });
        transactions.push(describe(tx, from));
        for (const log of failure === undefined ? logs : []) {
          bloom.add(log.address);
          for (const topic of log.topics) bloom.add(topic);
        }
        receipts.push(keccak256(encodeReceipt({ status: failure === undefined ? 1 : 0, cumulativeBlockGasUsed: gasUsed, bitvector: outcome.bloom.bitvector, logs: outcome.execResult.logs ?? [] }, tx.type)));
      }
      const transactionsRoot = keccak256(Buffer.concat(transactions.map((t) => t.hash)));
      const receiptsRoot = keccak256(Buffer.concat(receipts));
      const miner = coinbaseOf(ctx.proposer);
      const prevRandao = block.overrides.prevRandao ?? ZERO_HASH;
      const headerFields = [
        parent.hash, bigIntToUnpaddedBytes(block.overrides.number), bigIntToUnpaddedBytes(block.overrides.time), miner,
        bigIntToUnpaddedBytes(ctx.gasLimit), bigIntToUnpaddedBytes(gasUsed), bigIntToUnpaddedBytes(baseFee),
        transactionsRoot, receiptsRoot, bloom.bitvector, prevRandao,
      ];
      const encodedHeader = RLP.encode(headerFields);
      const hash = keccak256(encodedHeader);
      results.push({
        number: block.overrides.number,
        hash,
        parentHash: parent.hash,
        timestamp: block.overrides.time,
        gasLimit: ctx.gasLimit,
        gasUsed,
        baseFeePerGas: baseFee,
        miner,
        prevRandao,
        transactionsRoot,
        receiptsRoot,
        logsBloom: bloom.bitvector,
        size: BigInt(RLP.encode([headerFields, transactions.map((t) => t.input)]).length),
        transactions,
        calls,
      });
      parent = { hash, gasLimit: ctx.gasLimit, coinbase: miner, baseFee };
      simulatedHashes.set(Number(block.overrides.number), hash);
    }
    return results;
  }
}

/** geth's revert message: `execution reverted` with the decoded reason when there is one. */
function revertMessage(data: Uint8Array): string {
  const reason = revertReasonOf(data);
  return reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`;
}
