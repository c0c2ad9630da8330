/** geth's decoding of revert data into a reason (`Error(string)` and `Panic(uint256)`), shared by eth_call, the tracers and the RPC errors. */

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

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

function uint(buf: Buffer, start: number): bigint {
  return BigInt(`0x${buf.subarray(start, start + 32).toString('hex') || '0'}`);
}

/** The reason carried by revert data, or undefined for custom errors and malformed ABI. */
export function revertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const selector = buf.subarray(0, 4).toString('hex');
  if (selector === PANIC_SELECTOR) {
    if (buf.length < 36) return undefined;
    const code = uint(buf, 4);
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR || buf.length < 68) return undefined;
  const offset = uint(buf, 4);
  if (offset + 32n > BigInt(buf.length - 4)) return undefined;
  const start = 4 + Number(offset);
  const length = uint(buf, start);
  if (BigInt(start + 32) + length > BigInt(buf.length)) return undefined;
  // Invalid UTF-8 becomes U+FFFD, as Go's JSON encoder does.
  return buf.subarray(start + 32, start + 32 + Number(length)).toString('utf8');
}
