/**
 * What crosses the thread boundary between the node and its execution workers: the setup a
 * worker attaches with, one task at a time, and its reply. Messages are structured clones,
 * so bigints, byte arrays and maps travel as they are; errors travel as plain failures and
 * become the same typed errors (or errors with the same message) on the node's side.
 */
import type { Genesis } from '../../app/index.js';
import type { BlockContext } from '../../evm/block-context.js';
import {
  CallFailedError,
  CallRevertedError,
  type CallRequest,
  type StateOverrides,
} from '../../evm/call.js';
import { ExecutionDeadlineError } from '../../evm/execution-deadline.js';
import type { SimulatePayload, SimulationBase } from '../../evm/simulate.js';
import { SimulationError } from '../../evm/simulate.js';
import type { DebugBackend } from '../../rpc/debug/index.js';
import type { StateStoreShare } from '../../store/index.js';
import type { TraceLimits } from '../../trace/index.js';

/** What a worker attaches to (its workerData). */
export interface WorkerSetup {
  /** The node's SS, which holds the state of every committed height. */
  readonly state: StateStoreShare;
  /** share() token of the block store: blocks to replay, and BLOCKHASH. */
  readonly blocks: number;
  readonly genesis: Genesis;
  /** `gas-cap` (0 = none). */
  readonly gasCap: bigint;
  readonly traceLimits: TraceLimits;
}

/** The debug_ backend methods a worker runs. */
export type TraceMethod = 'traceTransaction' | 'traceBlockByNumber' | 'traceBlockByHash' | 'traceCall' | 'traceStateAccess';

/** One debug_ backend call, its arguments typed by its method. */
export type TraceCall = {
  [M in TraceMethod]: { readonly kind: 'trace'; readonly method: M; readonly args: Parameters<DebugBackend[M]> };
}[TraceMethod];

/** One unit of work: an eth_call, eth_estimateGas, eth_createAccessList or eth_simulateV1 on the state at `height`, or one trace. */
export type TaskBody =
  | {
      readonly kind: 'call' | 'estimateGas';
      readonly height: number;
      readonly block: BlockContext;
      readonly request: CallRequest;
      readonly overrides: StateOverrides;
    }
  | {
      readonly kind: 'createAccessList';
      readonly height: number;
      readonly block: BlockContext;
      readonly request: CallRequest;
      readonly overrides: StateOverrides;
    }
  | {
      readonly kind: 'simulate';
      readonly height: number;
      readonly block: BlockContext;
      readonly base: SimulationBase;
      readonly payload: SimulatePayload;
    }
  | TraceCall;

/** A task as posted: its body, an id the reply carries, and the Date.now() time its answer is due. */
export type Task = TaskBody & { readonly id: number; readonly deadlineAt: number };

/** Why a task failed, as a clone can carry it. */
export type TaskFailure =
  | { readonly kind: 'reverted'; readonly data: Uint8Array; readonly reason: string | undefined }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'simulation'; readonly code: number; readonly message: string }
  | { readonly kind: 'deadline' }
  | { readonly kind: 'error'; readonly message: string };

/** A worker's answer to task `id`. */
export type TaskReply = (
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly failure: TaskFailure }
) & {
  /** Transactions the worker's block replays have run untraced since it started (see trace/replay). */
  readonly replayed: number;
};

/**
 * `value` with every byte array that is a view into a larger buffer copied out. A structured
 * clone copies a view's whole underlying buffer — a 32-byte return value cut from the EVM's
 * memory or from Node's 8 KiB buffer pool would cost a copy of all of it — so messages carry
 * compact arrays only. Walks plain objects, arrays and maps (the small shapes of tasks and
 * call results); strings and numbers pass as they are.
 */
export function compactBytes<T>(value: T): T {
  if (value instanceof Uint8Array) {
    return (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : value.slice()) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => compactBytes(item)) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]: [unknown, unknown]) => [k, compactBytes(v)])) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) copy[key] = compactBytes(field);
    return copy as T;
  }
  return value;
}

/** What a worker posts once it has loaded and made its first VM, before any reply. */
export const WORKER_READY = 'ready';

/**
 * Everything a worker posts. Each reply goes out as soon as its task is done: held back to
 * share a message with later ones, it would make the task look longer than it ran.
 */
export type WorkerMessage = TaskReply | typeof WORKER_READY | HeapReport;

/**
 * A worker's V8 heap, posted once before it is ready and then every HEAP_REPORT_MS: the
 * node's own heap metrics cover its main thread only. `threadId` is its Linux thread id,
 * under which the node reads the worker's CPU time (undefined where /proc has none).
 */
export interface HeapReport {
  readonly heap: WorkerHeap;
  readonly threadId: number | undefined;
}

/** Bytes of one worker's V8 heap. */
export interface WorkerHeap {
  /** Held by live and not yet collected objects. */
  readonly usedBytes: number;
  /** Reserved by the heap (what it occupies in the process). */
  readonly totalBytes: number;
  /** Of totalBytes, reserved by the young generation (new space and its large objects), which V8 grows under allocation. */
  readonly youngBytes: number;
  /** Outside the heap but owned by its objects (ArrayBuffers, native handles). */
  readonly externalBytes: number;
}

/** How often a worker reports its heap. */
export const HEAP_REPORT_MS = 5000;

/** The failure `error` is, for the reply. */
export function failureOf(error: unknown): TaskFailure {
  if (error instanceof CallRevertedError) return { kind: 'reverted', data: compactBytes(error.data), reason: error.reason };
  if (error instanceof CallFailedError) return { kind: 'failed', message: error.message };
  if (error instanceof SimulationError) return { kind: 'simulation', code: error.code, message: error.message };
  if (error instanceof ExecutionDeadlineError) return { kind: 'deadline' };
  return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}

/** The error `failure` stands for, on the node's side. */
export function errorOf(failure: TaskFailure): Error {
  switch (failure.kind) {
    case 'reverted':
      return new CallRevertedError(failure.data, failure.reason);
    case 'failed':
      return new CallFailedError(failure.message);
    case 'simulation':
      return new SimulationError(failure.code, failure.message);
    case 'deadline':
      return new ExecutionDeadlineError();
    case 'error':
      return new Error(failure.message);
  }
}
