/**
 * The JSON-RPC 2.0 dispatcher: parses a body, validates each message, runs the method handlers
 * and serialises the answer, with geth's error codes and limits. When every handler involved
 * returns a plain value the answer is returned synchronously, so the hot path allocates no
 * Promise; only handlers that return a Promise make the answer asynchronous.
 */
import { Logger } from '../../log/logger.js';
import type { RequestContext } from './context.js';
import { RpcError, toRpcError } from './errors.js';
import { rawIdTexts, scalarValueEnd } from './raw-ids.js';
import { classifyMessage, paramsArray, type ValidMessage } from './request.js';
import { errorResponse, NULL_ID, resultResponse, responseSize, responseText, type EncodedResponse } from './response.js';

/** A method handler: positional params in, a JSON-serialisable result (or a Promise of one) out. */
export type RpcMethodHandler = (params: unknown[], ctx: RequestContext) => unknown;

/** Handlers by method name, e.g. `{ eth_chainId: () => '0x1' }`. */
export type MethodTable = Readonly<Record<string, RpcMethodHandler>>;

/** Limits of a dispatcher. */
export interface DispatcherOptions {
  /** Most messages in one batch; larger batches get geth's "batch too large". Default 1000 (geth's). */
  maxBatchSize?: number;
  /** Most asynchronous calls running at once; further calls get a -32005 error at once. Default 1024. */
  maxInFlight?: number;
  /** Largest response text, for one call and for a whole batch; a larger answer becomes a -32005 error. Default 25 MiB. */
  maxResponseBytes?: number;
  logger?: Logger;
  /** The RpcError of a thrown value, consulted before the default mapping; undefined leaves it to the default. */
  mapError?: (thrown: unknown) => RpcError | undefined;
  /** Told of every answered call (the metrics): the method, or undefined when it is not served, its seconds and whether it succeeded. */
  observe?: CallObserver;
}

/** Receives each answered call: `method` is undefined for a method the table does not hold, so labels stay bounded. */
export type CallObserver = (method: string | undefined, seconds: number, ok: boolean) => void;

/** geth's default batch item limit. */
export const DEFAULT_MAX_BATCH_SIZE = 1000;
/** Default cap on calls in flight. */
export const DEFAULT_MAX_IN_FLIGHT = 1024;
/** Default cap on a response's size (geth caps a batch response at 25 MB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 25 * 1024 * 1024;

const PARSE_ERROR_RESPONSE = errorResponse(NULL_ID, RpcError.parseError());
const EMPTY_BATCH_RESPONSE = errorResponse(NULL_ID, RpcError.invalidRequest('empty batch'));
const INVALID_REQUEST = RpcError.invalidRequest();
const BATCH_TOO_LARGE = RpcError.invalidRequest('batch too large');
const BATCH_RESPONSE_TOO_LARGE = RpcError.limitExceeded('batch response exceeded limit (max-response-bytes); send fewer calls per batch');

/** Executes JSON-RPC requests against a method table. */
export class Dispatcher {
  readonly #methods: Map<string, RpcMethodHandler>;
  readonly #maxBatchSize: number;
  readonly #maxInFlight: number;
  readonly #maxResponseBytes: number;
  readonly #logger: Logger;
  readonly #busy: RpcError;
  readonly #mapError: ((thrown: unknown) => RpcError | undefined) | undefined;
  readonly #observe: CallObserver | undefined;
  #inFlight = 0;

  constructor(methods: MethodTable, options: DispatcherOptions = {}) {
    // A Map, not the object itself, so names like "constructor" or "__proto__" never resolve.
    this.#methods = new Map(Object.entries(methods));
    this.#maxBatchSize = positiveInteger('maxBatchSize', options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE);
    this.#maxInFlight = positiveInteger('maxInFlight', options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.#maxResponseBytes = positiveInteger('maxResponseBytes', options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    this.#logger = options.logger ?? new Logger({ base: { module: 'rpc' } });
    this.#mapError = options.mapError;
    this.#observe = options.observe;
    this.#busy = RpcError.limitExceeded(
      `server busy: ${this.#maxInFlight} requests already in flight; retry later or raise the RPC in-flight request limit`,
    );
  }

  /** Asynchronous calls currently running. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** True when a handler is registered under `method`. */
  has(method: string): boolean {
    return this.#methods.has(method);
  }

  /**
   * Answers a request body (one message or a batch). Returns the response text, `''` when
   * nothing is to be answered (notifications only); a Promise only when a handler returned one.
   * Never throws and never rejects: every failure becomes a JSON-RPC error.
   */
  handle(body: string, ctx: RequestContext): EncodedResponse | Promise<EncodedResponse> {
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return PARSE_ERROR_RESPONSE;
    }
    let raw: Array<string | undefined> | undefined;
    const rawIds = (): Array<string | undefined> => (raw ??= rawIdTexts(body));
    if (Array.isArray(payload)) return this.#handleBatch(payload, ctx, rawIds);
    return this.#handleMessage(payload, ctx, () => rawIds()[0]) ?? '';
  }

  /** One message's answer, or null for a notification. */
  #handleMessage(message: unknown, ctx: RequestContext, rawId: () => string | undefined): EncodedResponse | Promise<EncodedResponse> | null {
    const classified = classifyMessage(message, rawId);
    switch (classified.kind) {
      case 'invalid':
        return errorResponse(classified.idText, INVALID_REQUEST);
      case 'notification':
        this.#notify(classified, ctx);
        return null;
      default:
        return this.#call(classified, ctx);
    }
  }

  #call(call: ValidMessage, ctx: RequestContext): EncodedResponse | Promise<EncodedResponse> {
    const observe = this.#observe;
    if (observe === undefined) return this.#answer(call, ctx);
    const started = performance.now();
    const known = this.#methods.has(call.method) ? call.method : undefined;
    const errorPrefix = `{"jsonrpc":"2.0","id":${call.idText},"error":`;
    const done = (answer: EncodedResponse): EncodedResponse => {
      // Only a result comes as bytes.
      observe(known, (performance.now() - started) / 1000, typeof answer !== 'string' || !answer.startsWith(errorPrefix));
      return answer;
    };
    const answer = this.#answer(call, ctx);
    return answer instanceof Promise ? answer.then(done) : done(answer);
  }

  #answer(call: ValidMessage, ctx: RequestContext): EncodedResponse | Promise<EncodedResponse> {
    const { method, idText } = call;
    const handler = this.#methods.get(method);
    if (handler === undefined) return errorResponse(idText, RpcError.methodNotFound(method));
    const params = paramsArray(call.params);
    if (params instanceof RpcError) return errorResponse(idText, params);
    if (this.#inFlight >= this.#maxInFlight) return errorResponse(idText, this.#busy);
    let result: unknown;
    try {
      result = handler(params, ctx);
    } catch (thrown) {
      return errorResponse(idText, this.#failure(method, thrown));
    }
    if (!(result instanceof Promise)) return this.#bounded(idText, resultResponse(idText, result, method), method);
    this.#inFlight++;
    return result.then(
      (value: unknown) => {
        this.#inFlight--;
        return this.#bounded(idText, resultResponse(idText, value, method), method);
      },
      (thrown: unknown) => {
        this.#inFlight--;
        return errorResponse(idText, this.#failure(method, thrown));
      },
    );
  }

  /** Runs a notification for its effect; its outcome is not reported to the client. */
  #notify(notification: ValidMessage, ctx: RequestContext): void {
    const { method } = notification;
    const handler = this.#methods.get(method);
    const params = paramsArray(notification.params);
    if (handler === undefined || params instanceof RpcError || this.#inFlight >= this.#maxInFlight) return;
    let result: unknown;
    try {
      result = handler(params, ctx);
    } catch (thrown) {
      this.#failure(method, thrown);
      return;
    }
    if (!(result instanceof Promise)) return;
    this.#inFlight++;
    result.then(
      () => {
        this.#inFlight--;
      },
      (thrown: unknown) => {
        this.#inFlight--;
        this.#failure(method, thrown);
      },
    );
  }

  #handleBatch(batch: unknown[], ctx: RequestContext, rawIds: () => Array<string | undefined>): string | Promise<string> {
    if (batch.length === 0) return EMPTY_BATCH_RESPONSE;
    if (batch.length > this.#maxBatchSize) {
      // As geth: one error, carrying the id of the first call, since the batch has no id of its own.
      return `[${errorResponse(firstCallIdText(batch, rawIds), BATCH_TOO_LARGE)}]`;
    }
    const answers: (EncodedResponse | Promise<EncodedResponse>)[] = [];
    let pending = false;
    for (let i = 0; i < batch.length; i++) {
      const answer = this.#handleMessage(batch[i], ctx, () => rawIds()[i]);
      if (answer === null) continue;
      if (answer instanceof Promise) pending = true;
      answers.push(answer);
    }
    if (answers.length === 0) return '';
    if (!pending) return this.#batchText(answers as EncodedResponse[]);
    return Promise.all(answers).then((encoded) => this.#batchText(encoded));
  }

  /** `response`, or a -32005 error when it is larger than the response limit. */
  #bounded(idText: string, response: EncodedResponse, method: string): EncodedResponse {
    const size = responseSize(response);
    if (size <= this.#maxResponseBytes) return response;
    return errorResponse(
      idText,
      RpcError.limitExceeded(
        `response too large: the answer of ${method} is ${size} bytes, over the ${this.#maxResponseBytes}-byte limit (max-response-bytes); ask for less, e.g. a narrower block range`,
      ),
    );
  }

  /** The batch answer; once the answers pass the response limit, the rest are replaced by errors (as geth does). */
  #batchText(encoded: EncodedResponse[]): string {
    const texts = encoded.map(responseText);
    let total = 2;
    for (let i = 0; i < texts.length; i++) {
      total += texts[i]!.length + 1;
      if (total <= this.#maxResponseBytes) continue;
      for (let j = i; j < texts.length; j++) texts[j] = errorResponse(idOf(texts[j]!), BATCH_RESPONSE_TOO_LARGE);
      break;
    }
    return `[${texts.join(',')}]`;
  }

  /** Maps a thrown value to its RpcError, logging crashes with their stack. */
  #failure(method: string, thrown: unknown): RpcError {
    const { error, crashed } = toRpcError(thrown, this.#mapError);
    if (crashed) {
      this.#logger.error(`RPC method ${method} crashed`, {
        method,
        error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
      });
    }
    return error;
  }
}

/** The id text of an encoded response (every response starts `{"jsonrpc":"2.0","id":`). */
function idOf(response: string): string {
  return response.slice(RESPONSE_ID_OFFSET, scalarValueEnd(response, RESPONSE_ID_OFFSET));
}

const RESPONSE_ID_OFFSET = '{"jsonrpc":"2.0","id":'.length;

/** The encoded id of the first call in a batch, or `null`. */
function firstCallIdText(batch: readonly unknown[], rawIds: () => Array<string | undefined>): string {
  for (let i = 0; i < batch.length; i++) {
    const classified = classifyMessage(batch[i], () => rawIds()[i]);
    if (classified.kind === 'call') return classified.idText;
  }
  return NULL_ID;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
