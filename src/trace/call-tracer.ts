/** geth's `callTracer`: the tree of call frames, optionally with logs (`withLog`) or only the top frame. */
import { bytesHex, quantity } from './hex.js';
import { revertReason } from '../evm/revert-reason.js';
import { booleanOption, type TracerConfig } from './config.js';
import type { FrameEnd, FrameStart, FrameType, Hex, JsonValue, TraceLog, Tracer, TxEnd, TxStart } from './types.js';

/** Options of callTracer. */
export interface CallTracerConfig {
  onlyTopCall: boolean;
  withLog: boolean;
}

/** One log as callTracer keeps it. */
export interface CallLog {
  address: Hex;
  topics: Hex[];
  data: Uint8Array;
  index: number;
  /** Child calls the frame had made when the log was emitted. */
  position: number;
}

/** What every traced call frame records (callTracer's and erc7562Tracer's frames). */
export interface FrameCore {
  type: FrameType;
  from: Hex;
  gas: bigint;
  gasUsed: bigint;
  to: Hex | undefined;
  input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  logs: CallLog[];
  value: bigint | undefined;
}

/** One call frame of the tree. */
export interface CallFrame extends FrameCore {
  calls: CallFrame[];
}

/** Parses callTracer's `tracerConfig`. */
export function callTracerConfig(config: TracerConfig): CallTracerConfig {
  return {
    onlyTopCall: booleanOption(config, 'onlyTopCall', 'callTracerConfig'),
    withLog: booleanOption(config, 'withLog', 'callTracerConfig'),
  };
}

/** Fills a frame's outcome the way geth does: output only on success or revert, `to` dropped for failed creates. */
function finishFrame(frame: CallFrame, end: FrameEnd): void {
  frame.gasUsed = end.gasUsed;
  if (end.error === undefined) {
    frame.output = end.output;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = end.createdAddress;
    return;
  }
  frame.error = end.error;
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
  if (!end.reverted || end.output.length === 0) return;
  frame.output = end.output;
  frame.revertReason = revertReason(end.output);
}

/** Drops the logs of failed frames and of everything beneath them. */
export function clearFailedLogs<F extends FrameCore & { calls: F[] }>(frame: F, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined;
  if (failed) frame.logs = [];
  for (const child of frame.calls) clearFailedLogs(child, failed);
}

/** A frame as geth's JSON: field order from, gas, gasUsed, to, input, output, error, revertReason, calls, logs, value, type. */
export function callFrameJson(frame: CallFrame): { [key: string]: JsonValue } {
  const out = frameHeadJson(frame);
  if (frame.calls.length > 0) out.calls = frame.calls.map(callFrameJson);
  if (frame.logs.length > 0) out.logs = frame.logs.map(callLogJson);
  if (frame.value !== undefined) out.value = quantity(frame.value);
  out.type = frame.type;
  return out;
}

/** The fields geth prints first in every frame, in order: from, gas, gasUsed, to, input, output, error, revertReason. */
export function frameHeadJson(frame: FrameCore): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { from: frame.from, gas: quantity(frame.gas), gasUsed: quantity(frame.gasUsed) };
  if (frame.to !== undefined) out.to = frame.to;
  out.input = bytesHex(frame.input);
  if (frame.output !== undefined && frame.output.length > 0) out.output = bytesHex(frame.output);
  if (frame.error !== undefined) out.error = frame.error;
  if (frame.revertReason !== undefined) out.revertReason = frame.revertReason;
  return out;
}

/** A frame's log as geth's callTracer (and erc7562Tracer) print it. */
export function callLogJson(log: CallLog): { [key: string]: JsonValue } {
  return {
    address: log.address,
    topics: log.topics,
    data: bytesHex(log.data),
    index: quantity(BigInt(log.index)),
    position: quantity(BigInt(log.position)),
  };
}

/** geth's callTracer. */
export class CallTracer implements Tracer {
  /** Open frames, outermost first; the finished top frame stays at [0]. */
  private readonly stack: CallFrame[] = [];
  private gasLimit = 0n;

  constructor(readonly config: CallTracerConfig) {}

  onTxStart(tx: TxStart): void {
    this.gasLimit = tx.gasLimit;
  }

  onEnter(start: FrameStart): void {
    if (start.depth > 0 && this.config.onlyTopCall) return;
    const frame: CallFrame = {
      type: start.type,
      from: start.from,
      gas: start.depth === 0 ? this.gasLimit : start.gas,
      gasUsed: 0n,
      to: start.to,
      input: start.input,
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: start.value,
    };
    this.stack.push(frame);
  }

  onExit(end: FrameEnd): void {
    if (end.depth > 0 && this.config.onlyTopCall) return;
    const frame = end.depth === 0 ? this.stack[0] : this.stack.pop();
    if (frame === undefined) return;
    finishFrame(frame, end);
    if (end.depth > 0) this.stack[this.stack.length - 1]?.calls.push(frame);
  }

  onLog(log: TraceLog): void {
    if (!this.config.withLog || (this.config.onlyTopCall && log.depth > 0)) return;
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return;
    frame.logs.push({ address: log.address, topics: log.topics, data: log.data, index: log.index, position: frame.calls.length });
  }

  onTxEnd(end: TxEnd): void {
    const top = this.stack[0];
    if (top === undefined) return;
    top.gasUsed = end.gasUsed;
    if (this.config.withLog) clearFailedLogs(top, false);
  }

  /** The finished top frame, or undefined before the transaction ran. */
  topFrame(): CallFrame | undefined {
    return this.stack[0];
  }

  result(): JsonValue {
    const top = this.stack[0];
    return top === undefined ? null : callFrameJson(top);
  }
}
