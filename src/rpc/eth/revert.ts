/** Decoding of revert data into the reason geth appends to "execution reverted". */
import { RpcError } from '../jsonrpc/index.js';
import { bytesHex } from './hex.js';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

/** Solidity's panic codes and the texts geth reports for them. */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
]);

/** The reason encoded in revert data (`Error(string)` or `Panic(uint256)`), or undefined. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const selector = buffer.toString('hex', 0, 4);
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = BigInt(`0x${buffer.toString('hex', 4, 36)}`);
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR || data.length < 68) return undefined;
  const offset = BigInt(`0x${buffer.toString('hex', 4, 36)}`);
  if (offset + 32n > BigInt(data.length - 4)) return undefined;
  const start = 4 + Number(offset);
  const length = BigInt(`0x${buffer.toString('hex', start, start + 32)}`);
  if (BigInt(start + 32) + length > BigInt(data.length)) return undefined;
  return buffer.toString('utf8', start + 32, start + 32 + Number(length));
}

/** geth's code-3 error for a reverted call: the decoded reason in the message, the raw bytes as data. */
export function revertError(data: Uint8Array): RpcError {
  return RpcError.executionReverted(bytesHex(data), decodeRevertReason(data));
}
