/**
 * The request flow both transports share: CORS preflight, 404/405, the body limit (413 with a
 * JSON-RPC error body), running the handler, and the response headers. A transport only adapts
 * its request/response objects to `Exchange`, so the two behave the same by construction.
 */
import { Logger } from '../../log/logger.js';
import { RpcError } from '../jsonrpc/errors.js';
import { errorResponse, NULL_ID } from '../jsonrpc/response.js';
import { declaredLength } from './body.js';
import { CorsPolicy } from './cors.js';
import { METHOD_NOT_ALLOWED, NOT_FOUND, type RouteTable } from './router.js';
import type { HttpReply, HttpRequestView, JsonRpcHandler, ResolvedTransportOptions, RouteHandler } from './types.js';

/** One request/response pair, adapted by a transport. */
export interface Exchange {
  /** Upper-case method. */
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** True once the client went away or the transport closed; `respond` is then a no-op. */
  readonly aborted: boolean;
  /** A request header by lower-case name, `''` when absent. Only valid during `HttpPipeline.serve` (uWS). */
  header(name: string): string;
  /** All request headers. Only valid during `HttpPipeline.serve` (uWS). */
  headers(): Record<string, string>;
  /**
   * Streams the body in. Exactly one callback fires unless the request is aborted first; after
   * `tooLarge` the rest of the body is read and discarded so the connection stays usable.
   */
  readBody(maxBytes: number, done: (body: string) => void, tooLarge: () => void): void;
  /** Sends the complete response; `headers` is a flat name/value list. */
  respond(status: number, headers: readonly string[], body: string | Uint8Array): void;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json';

/** The 413 body: a JSON-RPC error (geth's wording) so JSON-RPC clients can show it. */
export function bodyTooLargeBody(limit: number, declared: number): string {
  const size = declared >= 0 ? `${declared}>${limit}` : `more than ${limit} bytes`;
  return errorResponse(NULL_ID, RpcError.limitExceeded(`content length too large (${size}); split the request into smaller ones`));
}

/** Runs requests through routing, limits and handlers. */
export class HttpPipeline {
  readonly #routes: RouteTable;
  readonly #maxBodyBytes: number;
  readonly #cors: CorsPolicy;
  readonly #logger: Logger;
  /** Response headers of JSON answers when CORS allows any origin, built once. */
  readonly #jsonHeadersAnyOrigin: readonly string[];

  constructor(routes: RouteTable, options: ResolvedTransportOptions, logger: Logger) {
    this.#routes = routes;
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#cors = new CorsPolicy(options.corsOrigins);
    this.#logger = logger;
    this.#jsonHeadersAnyOrigin = ['Content-Type', JSON_TYPE, 'Access-Control-Allow-Origin', '*'];
  }

  /** Handles one request; reads everything it needs from `exchange` before returning. */
  serve(exchange: Exchange): void {
    const { method, path } = exchange;
    if (method === 'OPTIONS') {
      this.#preflight(exchange);
      return;
    }
    const endpoint = this.#routes.lookup(method, path);
    if (endpoint === NOT_FOUND) {
      exchange.respond(404, ['Content-Type', TEXT], 'not found\n');
    } else if (endpoint === METHOD_NOT_ALLOWED) {
      exchange.respond(405, ['Content-Type', TEXT, 'Allow', this.#routes.allowed(path) ?? 'OPTIONS'], 'method not allowed\n');
    } else {
      const corsOrigin = this.#cors.allowsAnyOrigin ? '*' : this.#cors.allowOrigin(exchange.header('origin'));
      if (endpoint.kind === 'jsonrpc') this.#serveJsonRpc(exchange, endpoint.handler, corsOrigin);
      else this.#serveRoute(exchange, endpoint.handler, corsOrigin);
    }
  }

  #serveJsonRpc(exchange: Exchange, handler: JsonRpcHandler, corsOrigin: string | undefined): void {
    const headers = corsOrigin === '*' ? this.#jsonHeadersAnyOrigin : withCors(['Content-Type', JSON_TYPE], corsOrigin);
    if (this.#rejectDeclaredOversize(exchange, headers)) return;
    exchange.readBody(
      this.#maxBodyBytes,
      (body) => this.#answerJsonRpc(exchange, handler, body, headers),
      () => exchange.respond(413, headers, bodyTooLargeBody(this.#maxBodyBytes, -1)),
    );
  }

  #serveRoute(exchange: Exchange, handler: RouteHandler, corsOrigin: string | undefined): void {
    const { method, path, query } = exchange;
    // Headers are copied now: uWS request objects die when serve() returns.
    const headers = exchange.headers();
    if (method === 'GET') {
      this.#answerRoute(exchange, handler, { method, path, query, headers, body: '' }, corsOrigin);
      return;
    }
    const errorHeaders = withCors(['Content-Type', JSON_TYPE], corsOrigin);
    if (this.#rejectDeclaredOversize(exchange, errorHeaders)) return;
    exchange.readBody(
      this.#maxBodyBytes,
      (body) => this.#answerRoute(exchange, handler, { method, path, query, headers, body }, corsOrigin),
      () => exchange.respond(413, errorHeaders, bodyTooLargeBody(this.#maxBodyBytes, -1)),
    );
  }

  #rejectDeclaredOversize(exchange: Exchange, headers: readonly string[]): boolean {
    const declared = declaredLength(exchange.header('content-length'));
    if (declared <= this.#maxBodyBytes) return false;
    exchange.respond(413, headers, bodyTooLargeBody(this.#maxBodyBytes, declared));
    return true;
  }

  #preflight(exchange: Exchange): void {
    const allow = this.#routes.allowed(exchange.path);
    if (allow === undefined) {
      exchange.respond(404, ['Content-Type', TEXT], 'not found\n');
      return;
    }
    const headers = this.#cors.preflightHeaders(exchange.header('origin'), allow, exchange.header('access-control-request-headers'));
    headers.push('Allow', allow);
    exchange.respond(204, headers, '');
  }

  #answerJsonRpc(exchange: Exchange, handler: JsonRpcHandler, body: string, headers: readonly string[]): void {
    let answer: ReturnType<JsonRpcHandler>;
    try {
      answer = handler(body);
    } catch (error) {
      this.#internalError(exchange, error, headers);
      return;
    }
    // The hot path: a synchronous answer goes out without allocating a Promise.
    if (!(answer instanceof Promise)) {
      exchange.respond(200, headers, answer);
      return;
    }
    answer.then(
      (encoded) => exchange.respond(200, headers, encoded),
      (error: unknown) => this.#internalError(exchange, error, headers),
    );
  }

  #answerRoute(exchange: Exchange, handler: RouteHandler, view: HttpRequestView, corsOrigin: string | undefined): void {
    const fail = (error: unknown) => this.#internalError(exchange, error, withCors(['Content-Type', JSON_TYPE], corsOrigin));
    let reply: HttpReply | Promise<HttpReply>;
    try {
      reply = handler(view);
    } catch (error) {
      fail(error);
      return;
    }
    if (reply instanceof Promise) {
      reply.then((r) => this.#sendReply(exchange, r, corsOrigin), fail);
    } else {
      this.#sendReply(exchange, reply, corsOrigin);
    }
  }

  #sendReply(exchange: Exchange, reply: HttpReply, corsOrigin: string | undefined): void {
    const headers = withCors(['Content-Type', reply.contentType ?? JSON_TYPE], corsOrigin);
    if (reply.headers !== undefined) {
      for (const [name, value] of Object.entries(reply.headers)) headers.push(name, value);
    }
    exchange.respond(reply.status, headers, reply.body);
  }

  #internalError(exchange: Exchange, error: unknown, headers: readonly string[]): void {
    this.#logger.error('HTTP handler failed', {
      method: exchange.method,
      path: exchange.path,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    exchange.respond(500, headers, errorResponse(NULL_ID, RpcError.internal('internal server error; see the node log')));
  }
}

function withCors(headers: string[], corsOrigin: string | undefined): string[] {
  if (corsOrigin === undefined) return headers;
  headers.push('Access-Control-Allow-Origin', corsOrigin);
  if (corsOrigin !== '*') headers.push('Vary', 'Origin');
  return headers;
}
