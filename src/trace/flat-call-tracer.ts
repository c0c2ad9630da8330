/** geth's `flatCallTracer`: the callTracer tree flattened into parity-style `trace_*` entries. */
import { CallTracer, type CallFrame } from './call-tracer.js';
import { booleanOption, type TracerConfig } from './config.js';
import { bytesHex, quantity } from './hex.js';
import type { FrameEnd, FrameStart, JsonValue, TraceLog, Tracer, TxEnd, TxStart } from './types.js';

/** Options of flatCallTracer. */
export interface FlatCallTracerConfig {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

/** Parses flatCallTracer's `tracerConfig`. */
export function flatCallTracerConfig(config: TracerConfig): FlatCallTracerConfig {
  return {
    convertParityErrors: booleanOption(config, 'convertParityErrors', 'flatCallTracerConfig'),
    includePrecompiles: booleanOption(config, 'includePrecompiles', 'flatCallTracerConfig'),
  };
}

const PARITY_ERRORS: ReadonlyMap<string, string> = new Map([
  ['out of gas', 'Out of gas'],
  ['contract creation code storage out of gas', 'Out of gas'],
  ['gas uint64 overflow', 'Out of gas'],
  ['max code size exceeded', 'Out of gas'],
  ['invalid jump destination', 'Bad jump destination'],
  ['execution reverted', 'Reverted'],
  ['return data out of bounds', 'Out of bounds'],
  ['stack limit reached 1024 (1023)', 'Out of stack'],
  ['precompiled failed', 'Built-in failed'],
  ['invalid input length', 'Built-in failed'],
]);

/** OpenEthereum's wording of a geth error. */
export function parityError(error: string): string {
  const known = PARITY_ERRORS.get(error);
  if (known !== undefined) return known;
  if (error.startsWith('out of gas:')) return 'Out of gas';
  if (error.startsWith('invalid opcode:')) return 'Bad instruction';
  if (error.startsWith('stack underflow')) return 'Stack underflow';
  return error;
}

/** Where the traced transaction sits (null/0 for a call that is not in a block). */
interface TxPlace {
  blockHash: string | null;
  blockNumber: number;
  transactionHash: string | null;
  transactionPosition: number;
}

/** geth's flatCallTracer, built over a callTracer. */
export class FlatCallTracer implements Tracer {
  private readonly calls = new CallTracer({ onlyTopCall: false, withLog: false });
  private isPrecompile: (address: `0x${string}`) => boolean = () => false;
  private place: TxPlace = { blockHash: null, blockNumber: 0, transactionHash: null, transactionPosition: 0 };

  constructor(readonly config: FlatCallTracerConfig) {}

  onTxStart(tx: TxStart): void {
    this.calls.onTxStart(tx);
    this.isPrecompile = (address) => tx.rules.isPrecompile(address);
    this.place = {
      blockHash: tx.block.hash ?? null,
      blockNumber: Number(tx.block.number),
      transactionHash: tx.block.txHash ?? null,
      transactionPosition: tx.block.txIndex ?? 0,
    };
  }

  onEnter(start: FrameStart): void {
    this.calls.onEnter(start);
  }

  onExit(end: FrameEnd): void {
    this.calls.onExit(end);
  }

  onLog(log: TraceLog): void {
    this.calls.onLog(log);
  }

  onTxEnd(end: TxEnd): void {
    this.calls.onTxEnd(end);
  }

  result(): JsonValue {
    const top = this.calls.topFrame();
    if (top === undefined) return [];
    const out: JsonValue[] = [];
    this.flatten(top, [], out);
    return out;
  }

  /** Parity hides plain calls to precompiles; delegate/callcode into them stay. */
  private hidden(frame: CallFrame): boolean {
    if (this.config.includePrecompiles) return false;
    return (frame.type === 'CALL' || frame.type === 'STATICCALL') && frame.to !== undefined && this.isPrecompile(frame.to);
  }

  private flatten(frame: CallFrame, traceAddress: number[], out: JsonValue[]): void {
    const children = frame.calls.filter((child) => !this.hidden(child));
    const entry = this.entry(frame, traceAddress, children.length);
    out.push(entry);
    children.forEach((child, i) => this.flatten(child, [...traceAddress, i], out));
  }

  private entry(frame: CallFrame, traceAddress: number[], subtraces: number): { [key: string]: JsonValue } {
    let action: { [key: string]: JsonValue };
    let result: { [key: string]: JsonValue } | null;
    let type: string;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      type = 'create';
      action = { creationMethod: frame.type.toLowerCase(), from: frame.from, gas: quantity(frame.gas), init: bytesHex(frame.input), value: quantity(frame.value ?? 0n) };
      result = { address: frame.to ?? null, code: bytesHex(frame.output ?? new Uint8Array()), gasUsed: quantity(frame.gasUsed) };
    } else if (frame.type === 'SELFDESTRUCT') {
      type = 'suicide';
      action = { address: frame.from, balance: quantity(frame.value ?? 0n), refundAddress: frame.to ?? null };
      result = null;
    } else {
      type = 'call';
      action = {
        callType: frame.type.toLowerCase(),
        from: frame.from,
        gas: quantity(frame.gas),
        input: bytesHex(frame.input),
        to: frame.to ?? null,
        value: quantity(frame.value ?? 0n),
      };
      result = { gasUsed: quantity(frame.gasUsed), output: bytesHex(frame.output ?? new Uint8Array()) };
    }
    // Revert output carries the reason; any other failure drops the result.
    if (frame.error !== undefined && frame.error !== 'execution reverted') result = null;
    const out: { [key: string]: JsonValue } = { action, blockHash: this.place.blockHash, blockNumber: this.place.blockNumber };
    if (frame.error !== undefined) out.error = this.config.convertParityErrors ? parityError(frame.error) : frame.error;
    if (result !== null) out.result = result;
    out.subtraces = subtraces;
    out.traceAddress = traceAddress;
    out.transactionHash = this.place.transactionHash;
    out.transactionPosition = this.place.transactionPosition;
    out.type = type;
    return out;
  }
}
