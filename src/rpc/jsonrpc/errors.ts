/**
 * JSON-RPC errors with go-ethereum's codes and messages, so clients written against geth
 * (viem, ethers, Foundry) recognise them.
 */

/** Error codes used on the wire. */
export const ErrorCode = {
  /** The body is not JSON. */
  ParseError: -32700,
  /** The JSON is not a valid request object (or the batch is empty or too large). */
  InvalidRequest: -32600,
  /** No handler is registered under the method name. */
  MethodNotFound: -32601,
  /** The params are not an array, or a handler rejected them. */
  InvalidParams: -32602,
  /** A handler crashed or its result could not be serialised. */
  Internal: -32603,
  /** geth's default code for an error a method returns. */
  Server: -32000,
  /** A request limit was hit (body size, requests in flight); EIP-1474's "limit exceeded". */
  LimitExceeded: -32005,
  /** The EVM reverted; `data` carries the revert bytes as hex. */
  ExecutionReverted: 3,
} as const;

/** One of the codes above, or any other code a method chooses. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode] | number;

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error a method handler throws to answer with a specific JSON-RPC error. */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Extra data sent as `error.data`; omitted from the response when undefined. */
  readonly data: unknown;

  constructor(code: ErrorCodeValue, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }

  /** The `error` object as sent on the wire. */
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  /** -32700, geth's "parse error" for a body that is not JSON. */
  static parseError(): RpcError {
    return new RpcError(ErrorCode.ParseError, 'parse error');
  }

  /** -32600; geth says "invalid request", "empty batch" or "batch too large". */
  static invalidRequest(message = 'invalid request'): RpcError {
    return new RpcError(ErrorCode.InvalidRequest, message);
  }

  /** -32601 with geth's text for an unknown method. */
  static methodNotFound(method: string): RpcError {
    return new RpcError(ErrorCode.MethodNotFound, `the method ${method} does not exist/is not available`);
  }

  /** -32602; the message names the argument at fault (e.g. "missing value for required argument 0"). */
  static invalidParams(message: string): RpcError {
    return new RpcError(ErrorCode.InvalidParams, message);
  }

  /** -32603 for failures inside the server rather than in the request. */
  static internal(message: string): RpcError {
    return new RpcError(ErrorCode.Internal, message);
  }

  /** -32000, the code geth gives to ordinary errors a method returns (e.g. "header not found"). */
  static server(message: string, data?: unknown): RpcError {
    return new RpcError(ErrorCode.Server, message, data);
  }

  /** -32005 for a request that crossed a configured limit; the message says which and what to do. */
  static limitExceeded(message: string): RpcError {
    return new RpcError(ErrorCode.LimitExceeded, message);
  }

  /**
   * Code 3, "execution reverted[: reason]", with the raw revert bytes as `data` (hex, "0x" when
   * empty). Decoding the reason from the revert bytes is the caller's job.
   */
  static executionReverted(revertDataHex: string, reason?: string): RpcError {
    const message = reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`;
    return new RpcError(ErrorCode.ExecutionReverted, message, revertDataHex);
  }
}

/** geth's message when a method handler crashes (a bug, not a bad request). */
export const HANDLER_CRASHED_MESSAGE = 'method handler crashed';

/** Built-in error types that signal a bug in a handler rather than a failure it meant to report. */
const PROGRAMMING_ERRORS: readonly (abstract new (...args: never[]) => Error)[] = [
  TypeError,
  ReferenceError,
  RangeError,
  SyntaxError,
  EvalError,
  URIError,
];

/**
 * Maps whatever a handler threw to an RpcError, the way geth maps a method's outcome: an
 * RpcError — or what `mapError` makes of the thrown value — passes through; an ordinary Error
 * is a returned error (-32000 with its message); a built-in programming error or a non-Error
 * value is a crash (-32603 "method handler crashed").
 */
export function toRpcError(thrown: unknown, mapError?: (thrown: unknown) => RpcError | undefined): { error: RpcError; crashed: boolean } {
  if (thrown instanceof RpcError) return { error: thrown, crashed: false };
  const mapped = mapError?.(thrown);
  if (mapped !== undefined) return { error: mapped, crashed: false };
  if (thrown instanceof Error && !PROGRAMMING_ERRORS.some((type) => thrown instanceof type)) {
    return { error: RpcError.server(thrown.message), crashed: false };
  }
  return { error: RpcError.internal(HANDLER_CRASHED_MESSAGE), crashed: true };
}
