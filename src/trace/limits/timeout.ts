/** The per-transaction deadline a request asks for (geth's TraceConfig `timeout`). */
import { DurationSyntaxError, parseDuration } from '../../config/index.js';
import { InvalidTimeoutError, TraceTimeoutTooLongError } from '../service-errors.js';
import type { TraceLimits } from './trace-limits.js';

/**
 * `timeout` (Go duration syntax) in milliseconds, or the default when the request names none.
 * Throws InvalidTimeoutError for bad syntax and TraceTimeoutTooLongError above `max-trace-timeout`.
 */
export function requestTimeoutMs(timeout: string | undefined, limits: Pick<TraceLimits, 'defaultTimeoutMs' | 'maxTimeoutMs' | 'maxTimeoutText'>): number {
  if (timeout === undefined) return limits.defaultTimeoutMs;
  let nanoseconds: bigint;
  try {
    nanoseconds = parseDuration(timeout);
  } catch (error) {
    if (error instanceof DurationSyntaxError) throw new InvalidTimeoutError(timeout);
    throw error;
  }
  const ms = Number(nanoseconds) / 1e6;
  if (ms > limits.maxTimeoutMs) throw new TraceTimeoutTooLongError(timeout, limits.maxTimeoutText);
  return ms;
}
