/** Typed tracer errors, and geth's wording for the EVM's failure reasons. */
import { stackArity } from './opcode-stack.js';

/** Base of every error the tracing layer raises. */
export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The tracer name is neither native nor bundled. Any other `tracer` string is JavaScript, so
 * a bare unknown name fails as geth's evaluation of it does.
 */
export class UnknownTracerError extends TraceError {
  constructor(readonly tracer: string) {
    super(`ReferenceError: ${tracer} is not defined`);
  }
}

/** `tracerConfig` does not fit the tracer (wrong type, contradictory options). */
export class TracerConfigError extends TraceError {}

/** The transaction could not be run at all (geth: `tracing failed: …`). */
export class TracingFailedError extends TraceError {
  constructor(reason: string) {
    super(`tracing failed: ${reason}`);
  }
}

/** The step a frame last began, which explains why the frame failed. */
export interface FailedStep {
  op: number;
  opName: string;
  gas: bigint;
  cost: bigint;
  stackLength: number;
}

const STACK_LIMIT = 1024;
const SSTORE_SENTRY_GAS = 2300n;
const SSTORE = 0x55;
const INVALID = 0xfe;
const BLAKE2F_INPUT_LENGTH = 213;

/** Hex as Go's `%#x` prints a byte. */
function byteHex(op: number): string {
  return `0x${op.toString(16)}`;
}

/**
 * geth's text for an @ethereumjs/evm failure `reason`, given the frame's last step (none for
 * a precompile), whether EIP-2200's SSTORE sentry applies, and the frame's input.
 */
export function gethVmError(reason: string, step: FailedStep | undefined, sentryActive: boolean, input: Uint8Array): string {
  if (reason.startsWith('invalid JUMP')) return 'invalid jump destination';
  switch (reason) {
    case 'revert':
      return 'execution reverted';
    case 'out of gas':
      if (step?.op === SSTORE && sentryActive && step.gas <= SSTORE_SENTRY_GAS) {
        return 'out of gas: not enough gas for reentrancy sentry';
      }
      return 'out of gas';
    case 'code store out of gas':
      return 'contract creation code storage out of gas';
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded';
    case 'stack underflow': {
      if (step === undefined) return 'stack underflow';
      return `stack underflow (${step.stackLength} <=> ${stackArity(step.op).pops})`;
    }
    case 'stack overflow': {
      if (step === undefined) return 'stack overflow';
      const { pops, pushes } = stackArity(step.op);
      return `stack limit reached ${step.stackLength} (${STACK_LIMIT + pops - pushes})`;
    }
    case 'invalid opcode':
      if (step === undefined) return 'invalid opcode';
      return step.op === INVALID ? 'invalid opcode: INVALID' : `invalid opcode: opcode ${byteHex(step.op)} not defined`;
    case 'value out of range':
      // Only blake2f fails this way without running code; geth names its two checks.
      if (step === undefined) return input.length === BLAKE2F_INPUT_LENGTH ? 'invalid final flag' : 'invalid input length';
      return 'return data out of bounds';
    case 'static state change':
      return 'write protection';
    case 'create collision':
      return 'contract address collision';
    case 'insufficient balance':
      return 'insufficient balance for transfer';
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef';
    case 'initcode exceeds max initcode size':
      return 'max initcode size exceeded';
    case 'value overflow':
      return 'gas uint64 overflow';
    default:
      return reason;
  }
}
