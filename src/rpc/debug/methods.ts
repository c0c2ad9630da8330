/**
 * The debug_ tracing methods: debug_traceTransaction, debug_traceBlockByNumber,
 * debug_traceBlockByHash and debug_traceCall with the struct logger (no tracer), the named
 * tracers and JavaScript tracer source, and debug_traceStateAccess (a transaction's
 * store-level reads). Parameters and errors follow geth's.
 */
import type { JsonValue, StructLoggerConfig } from '../../trace/index.js';
import { RpcError, expectParams, type MethodTable } from '../jsonrpc/index.js';
import type { CallRequest } from '../eth/backend.js';
import { parseBlockNumber, parseBlockNumberOrHash, parseCallRequest, parseHash } from '../eth/params.js';
import { formatStateAccess, type StateAccess } from './state-access.js';
import { parseTraceCallExtras, type TraceCallExtras } from './trace-call-params.js';
import { bytesHex } from '../../util/hex.js';

/** What a trace request asks for. */
export interface TraceOptions {
  /** A tracer name; undefined for the struct logger. */
  readonly tracer: string | undefined;
  /** The struct logger's options (top-level keys of the config). */
  readonly structLogger: StructLoggerConfig;
  readonly tracerConfig: JsonValue | undefined;
  /** geth's `timeout` as given (Go duration syntax; default 5 s); the backend parses it. */
  readonly timeout: string | undefined;
}

/** One traced transaction of a block. */
export interface BlockTraceEntry {
  readonly txHash: Uint8Array;
  readonly result: JsonValue;
}

/** The block debug_traceCall runs in: a resolved height or a hash. */
export type TraceCallBlock = { readonly height: number } | { readonly hash: Uint8Array };

/** A debug_traceCall request, decoded. */
export interface TraceCallRequest extends TraceCallExtras {
  readonly call: CallRequest;
  readonly block: TraceCallBlock;
}

/** The node's side of tracing. Errors it throws go to the client as -32000 with their message, unless rpcErrorOf (rpc/errors.ts) maps them. */
export interface DebugBackend {
  /** Latest stored height (for tags). */
  latestHeight(): number;
  /** Oldest stored height (the `earliest` tag of debug_traceCall). */
  earliestHeight(): number;
  /** The trace of one transaction, or undefined when the hash is unknown. */
  traceTransaction(hash: Uint8Array, options: TraceOptions): Promise<JsonValue | undefined>;
  /** Traces of every transaction of the block at `height`, or undefined when there is none. */
  traceBlockByNumber(height: number, options: TraceOptions): Promise<BlockTraceEntry[] | undefined>;
  /** Traces of every transaction of the block with `hash`, or undefined when there is none. */
  traceBlockByHash(hash: Uint8Array, options: TraceOptions): Promise<BlockTraceEntry[] | undefined>;
  /** The trace of a call in a block, or undefined when the block is unknown. */
  traceCall(request: TraceCallRequest, options: TraceOptions): Promise<JsonValue | undefined>;
  /** The store-level reads of one transaction, or undefined when the hash is unknown. */
  traceStateAccess(hash: Uint8Array): Promise<StateAccess | undefined>;
}

/** Reads geth's TraceConfig (keys matched case-insensitively, unknown keys ignored). */
export function parseTraceConfig(value: unknown, index: number): TraceOptions {
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw RpcError.invalidParams(`invalid argument ${index}: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type tracers.TraceConfig`);
  }
  const fields = new Map(Object.entries((value as Record<string, unknown> | null) ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const tracer = fields.get('tracer') ?? undefined;
  if (tracer !== undefined && typeof tracer !== 'string') {
    throw RpcError.invalidParams(`invalid argument ${index}: json: cannot unmarshal ${typeof tracer} into Go struct field TraceConfig.tracer of type string`);
  }
  const timeout = fields.get('timeout');
  if (timeout !== undefined && timeout !== null && typeof timeout !== 'string') {
    throw RpcError.invalidParams(`invalid argument ${index}: json: cannot unmarshal ${typeof timeout} into Go struct field TraceConfig.timeout of type string`);
  }
  const flag = (key: string): boolean => fields.get(key.toLowerCase()) === true;
  const limit = fields.get('limit');
  return {
    tracer,
    structLogger: {
      disableStack: flag('disableStack'),
      disableStorage: flag('disableStorage'),
      enableMemory: flag('enableMemory'),
      enableReturnData: flag('enableReturnData'),
      limit: typeof limit === 'number' && limit > 0 ? limit : 0,
    },
    tracerConfig: fields.get('tracerconfig') as JsonValue | undefined,
    timeout: timeout ?? undefined,
  };
}

function entries(traces: BlockTraceEntry[]): Array<{ txHash: string; result: JsonValue }> {
  return traces.map((t) => ({ txHash: bytesHex(t.txHash), result: t.result }));
}

/** The debug_ method table over `backend`. */
export function createDebugMethods(backend: DebugBackend): MethodTable {
  return {
    debug_traceTransaction: async (params) => {
      expectParams(params, 1, 2);
      const hash = parseHash(params[0], 0);
      const result = await backend.traceTransaction(hash, parseTraceConfig(params[1], 1));
      if (result === undefined) throw RpcError.server('transaction not found');
      return result;
    },
    debug_traceBlockByNumber: async (params) => {
      expectParams(params, 1, 2);
      const selector = parseBlockNumber(params[0], 0);
      const options = parseTraceConfig(params[1], 1);
      let height: number;
      if (selector.kind === 'number') {
        height = selector.number;
      } else if (selector.tag === 'pending') {
        throw RpcError.server('pending block is not available');
      } else {
        height = selector.tag === 'earliest' ? 0 : backend.latestHeight();
      }
      if (height === 0) throw RpcError.server('genesis is not traceable');
      const traces = await backend.traceBlockByNumber(height, options);
      if (traces === undefined) throw RpcError.server(`block #${height} not found`);
      return entries(traces);
    },
    debug_traceBlockByHash: async (params) => {
      expectParams(params, 1, 2);
      const hash = parseHash(params[0], 0);
      const traces = await backend.traceBlockByHash(hash, parseTraceConfig(params[1], 1));
      if (traces === undefined) throw RpcError.server(`block ${bytesHex(hash)} not found`);
      return entries(traces);
    },
    debug_traceCall: async (params) => {
      expectParams(params, 2, 3);
      const call = parseCallRequest(params[0], 0);
      const selector = parseBlockNumberOrHash(params[1], 1);
      const options = parseTraceConfig(params[2], 2);
      const extras = parseTraceCallExtras(params[2], 2);
      let block: TraceCallBlock;
      if (selector.kind === 'hash') block = { hash: selector.hash };
      else if (selector.kind === 'number') block = { height: selector.number };
      else if (selector.tag === 'pending') throw RpcError.server('tracing on top of pending is not supported');
      else block = { height: selector.tag === 'earliest' ? backend.earliestHeight() : backend.latestHeight() };
      const result = await backend.traceCall({ call, block, ...extras }, options);
      if (result === undefined) throw RpcError.server('hash' in block ? `block ${bytesHex(block.hash)} not found` : `block #${block.height} not found`);
      return result;
    },
    debug_traceStateAccess: async (params) => {
      expectParams(params, 1);
      const access = await backend.traceStateAccess(parseHash(params[0], 0));
      if (access === undefined) throw RpcError.server('transaction not found');
      return formatStateAccess(access);
    },
  };
}
