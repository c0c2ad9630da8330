/** Argument-count checks for method handlers, with geth's invalid-params messages. */
import { RpcError } from './errors.js';

/**
 * Throws -32602 unless `params` has between `required` and `max` entries and none of the
 * first `required` is `null` (geth: "missing value for required argument N", "too many
 * arguments, want at most N").
 */
export function expectParams(params: readonly unknown[], required: number, max: number = required): void {
  if (params.length > max) throw RpcError.invalidParams(`too many arguments, want at most ${max}`);
  for (let i = 0; i < required; i++) {
    if (i >= params.length || params[i] === null || params[i] === undefined) {
      throw RpcError.invalidParams(`missing value for required argument ${i}`);
    }
  }
}

/** The -32602 "invalid argument N: reason" error, for a handler to throw when it cannot decode an argument. */
export function invalidArgument(index: number, reason: string): RpcError {
  return RpcError.invalidParams(`invalid argument ${index}: ${reason}`);
}
