/** The host side of the sandbox's `log`, `db` and helper globals: answers from the current step and state snapshot. */
import { generateAddress, generateAddress2 } from '@ethereumjs/util';

import { bytesHex, hexBytes, minimalBytes } from '../hex.js';
import type { Hex, OpcodeStep, TraceRules } from '../types.js';
import type { StateSnapshot } from './state-cache.js';

/** The functions the prelude calls on the host (strings are 0x-hex unless named otherwise). */
export interface TracerHostFunctions {
  opName(op: number): string;
  stackPeek(index: number): string;
  stackLength(): number;
  memorySlice(begin: number, end: number): string;
  memoryUint(offset: number): string;
  memoryLength(): number;
  contract(field: string): string;
  db(kind: string, address: string, slot: string | undefined): string | number | boolean;
  createAddress(from: string, nonce: number): string;
  create2Address(from: string, salt: string, initcode: string): string;
  isPrecompiled(address: string): boolean;
}

/** An error the tracer API raises; the sandbox prints its message without a type prefix, as geth does. */
export class TracerApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostError';
  }
}

/** Largest zero padding `log.memory.slice` adds past the end of memory (geth's limit). */
const MEMORY_PAD_LIMIT = 1024 * 1024;

/** Serves the host functions from whatever step and snapshot the tracer is being called for. */
export class StepHost implements TracerHostFunctions {
  /** The step `log` describes. */
  current: OpcodeStep | undefined;
  rules: TraceRules | undefined;

  constructor(private readonly state: StateSnapshot) {}

  private step(): OpcodeStep {
    if (this.current === undefined) throw new TracerApiError('log is only available inside step() and fault()');
    return this.current;
  }

  opName(op: number): string {
    const step = this.step();
    return step.op === op ? step.opName : `opcode 0x${op.toString(16)}`;
  }

  stackPeek(index: number): string {
    const stack = this.step().stack;
    if (!Number.isInteger(index) || index < 0 || index >= stack.length) {
      throw new TracerApiError(`tracer accessed out of bound stack: size ${stack.length}, index ${index}`);
    }
    return `0x${(stack[stack.length - 1 - index] ?? 0n).toString(16)}`;
  }

  stackLength(): number {
    return this.step().stack.length;
  }

  memorySlice(begin: number, end: number): string {
    const memory = this.step().memory;
    if (!(begin >= 0) || !(end >= begin)) throw new TracerApiError(`tracer accessed out of bound memory: offset ${begin}, end ${end}`);
    if (end > memory.length && end - begin > MEMORY_PAD_LIMIT) throw new TracerApiError(`reached limit for padding memory slice: ${end - begin}`);
    const out = new Uint8Array(end - begin);
    if (begin < memory.length) out.set(memory.subarray(begin, Math.min(end, memory.length)));
    return bytesHex(out);
  }

  memoryUint(offset: number): string {
    const memory = this.step().memory;
    if (!(offset >= 0) || memory.length < offset + 32) {
      throw new TracerApiError(`tracer accessed out of bound memory: available ${memory.length}, offset ${offset}, size 32`);
    }
    return bytesHex(memory.subarray(offset, offset + 32));
  }

  memoryLength(): number {
    return this.step().memory.length;
  }

  contract(field: string): string {
    const contract = this.step().contract;
    switch (field) {
      case 'caller':
        return contract.caller;
      case 'address':
        return contract.address;
      case 'value':
        return `0x${contract.value.toString(16)}`;
      default:
        return bytesHex(contract.input);
    }
  }

  db(kind: string, address: string, slot: string | undefined): string | number | boolean {
    const at = address as Hex;
    switch (kind) {
      case 'balance':
        return `0x${this.state.balance(at).toString(16)}`;
      case 'nonce':
        return Number(this.state.nonce(at));
      case 'code':
        return bytesHex(this.state.code(at));
      case 'storage':
        return this.state.storage(at, (slot ?? '0x') as Hex);
      default:
        return this.state.exists(at);
    }
  }

  createAddress(from: string, nonce: number): string {
    return bytesHex(generateAddress(hexBytes(from), minimalBytes(BigInt(nonce))));
  }

  create2Address(from: string, salt: string, initcode: string): string {
    return bytesHex(generateAddress2(hexBytes(from), hexBytes(salt), hexBytes(initcode)));
  }

  isPrecompiled(address: string): boolean {
    return this.rules?.isPrecompile(address as Hex) ?? false;
  }
}
