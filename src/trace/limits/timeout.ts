/** The per-transaction deadline a request asks for (geth's TraceConfig `timeout`). */
import { DurationSyntaxError, parseDuration } from '../../config/index.js';
import { InvalidTimeoutError } from '../service-errors.js';

/** `timeout` (Go duration syntax) in milliseconds, or `fallbackMs` when the request names none. */
export function requestTimeoutMs(timeout: string | undefined, fallbackMs: number): number {
  if (timeout === undefined) return fallbackMs;
  try {
    return Number(parseDuration(timeout)) / 1e6;
  } catch (error) {
    if (error instanceof DurationSyntaxError) throw new InvalidTimeoutError(timeout);
    throw error;
  }
}
