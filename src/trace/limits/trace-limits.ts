/** The bounds every trace runs within, as app.toml's `[evm]` section configures them. */
import { defaultAppConfig, type EvmRpcConfig } from '../../config/index.js';

/** The bounds every trace runs within (app.toml `[evm]`). */
export interface TraceLimits {
  /** Per-transaction deadline when a request names no `timeout` (`trace-timeout`). */
  readonly defaultTimeoutMs: number;
  /** Traces running at once; more are refused (`max-concurrent-traces`). */
  readonly maxConcurrentTraces: number;
  /** Cap on one struct-logger trace's encoded struct logs (`max-struct-log-bytes`). */
  readonly maxStructLogBytes: number;
  /** The longest per-transaction `timeout` a request may ask for (`max-trace-timeout`). */
  readonly maxTimeoutMs: number;
  /** `max-trace-timeout` as operators wrote it, for the refusal. */
  readonly maxTimeoutText: string;
}

/** The trace limits an `[evm]` section configures. */
export function traceLimitsOf(evm: EvmRpcConfig): TraceLimits {
  return {
    defaultTimeoutMs: evm.traceTimeout.toMilliseconds(),
    maxConcurrentTraces: evm.maxConcurrentTraces,
    maxStructLogBytes: evm.maxStructLogBytes,
    maxTimeoutMs: evm.maxTraceTimeout.toMilliseconds(),
    maxTimeoutText: evm.maxTraceTimeout.toString(),
  };
}

/** The limits of a default app.toml. */
export function defaultTraceLimits(): TraceLimits {
  return traceLimitsOf(defaultAppConfig().evm);
}
