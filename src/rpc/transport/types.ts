/**
 * The transport contract the RPC servers are written against. Two implementations satisfy it
 * with the same observable behaviour: uWebSockets.js (the fast path) and node:http + ws.
 */

/** HTTP methods a route can be registered for. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which implementation serves the requests. */
export type TransportKind = 'uws' | 'node';

/** A request as a plain route handler sees it; everything is copied out before the handler runs. */
export interface HttpRequestView {
  /** Upper-case method, e.g. `GET`. */
  readonly method: string;
  /** The path without the query string, e.g. `/status`. */
  readonly path: string;
  /** The raw query string without `?` (`''` when there is none). */
  readonly query: string;
  /** Request headers with lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body decoded as UTF-8 (`''` for GET). */
  readonly body: string;
}

/** What a plain route handler answers. */
export interface HttpReply {
  readonly status: number;
  readonly body: string | Uint8Array;
  /** Defaults to `application/json`. */
  readonly contentType?: string;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A plain HTTP route (the consensus RPC, `/metrics`). */
export type RouteHandler = (request: HttpRequestView) => HttpReply | Promise<HttpReply>;

/**
 * The JSON-RPC POST entry: gets the body as text and returns the response (text, or UTF-8 bytes),
 * synchronously when it can; `''` means there is nothing to answer (only notifications), sent as an empty 200.
 */
export type JsonRpcHandler = (body: string) => string | Uint8Array | Promise<string | Uint8Array>;

/** One open WebSocket, valid from `open` until `close`; kept by subscriptions to push later. */
export interface WsConnection {
  /** Unique per transport, for logs and subscription bookkeeping. */
  readonly id: number;
  /** False once the socket has closed; `send` is then a no-op. */
  readonly isOpen: boolean;
  /**
   * Queues a text frame. Returns false when the socket is closed, or when the client reads so
   * slowly that the send buffer passed its limit, in which case the connection is closed.
   */
  send(text: string): boolean;
  /** Closes the socket with a close frame (default code 1000). */
  close(code?: number, reason?: string): void;
}

/** Callbacks of a WebSocket endpoint; `S` is per-connection state created by `open`. */
export interface WebSocketHandlers<S> {
  /** A client connected; the return value is handed back with each message. */
  open(connection: WsConnection): S;
  /** A text (or binary, decoded as UTF-8) message arrived. */
  message(connection: WsConnection, text: string, state: S): void;
  /** The connection closed, from either side; do not send from here. */
  close?(connection: WsConnection, state: S): void;
}

/** Limits and policies shared by both implementations. */
export interface TransportOptions {
  /** Largest request body accepted; larger ones get HTTP 413 with a JSON-RPC error body. Default 5 MiB (geth's). */
  maxBodyBytes?: number;
  /**
   * Largest WebSocket message accepted; a larger one closes the connection (node:http sends close
   * code 1009 first; uWS drops the TCP connection, which clients report as 1006). Default: maxBodyBytes.
   */
  maxWsMessageBytes?: number;
  /** Bytes a WebSocket may have queued for a slow reader before it is closed. Default 16 MiB. */
  maxWsBufferedBytes?: number;
  /** Origins allowed by CORS; `['*']` (the default) allows any. */
  corsOrigins?: readonly string[];
}

/** Options with every default filled in. */
export interface ResolvedTransportOptions {
  readonly maxBodyBytes: number;
  readonly maxWsMessageBytes: number;
  readonly maxWsBufferedBytes: number;
  readonly corsOrigins: readonly string[];
}

/** An HTTP + WebSocket server. Register routes and endpoints, then `listen`; `close` ends everything. */
export interface HttpTransport {
  readonly kind: TransportKind;
  /** Serves `handler` for `method` on exactly `path`; other methods on that path get 405. */
  route(method: HttpMethod, path: string, handler: RouteHandler): void;
  /** Serves JSON-RPC over HTTP POST on `path`. */
  jsonRpc(path: string, handler: JsonRpcHandler): void;
  /** Accepts WebSocket upgrades on `path`. */
  onWebSocket<S>(path: string, handlers: WebSocketHandlers<S>): void;
  /** Starts listening; port 0 picks a free port. Resolves to the bound port. */
  listen(host: string, port: number): Promise<number>;
  /** Stops listening and closes every HTTP and WebSocket connection. */
  close(): Promise<void>;
}

/** Thrown for misuse of a transport (registering after listen, listening twice, bind failure). */
export class TransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportError';
  }
}

const MIB = 1024 * 1024;

/** Fills in the defaults and checks the limits are positive integers. */
export function resolveTransportOptions(options: TransportOptions = {}): ResolvedTransportOptions {
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes ?? 5 * MIB);
  return {
    maxBodyBytes,
    maxWsMessageBytes: positiveInteger('maxWsMessageBytes', options.maxWsMessageBytes ?? maxBodyBytes),
    maxWsBufferedBytes: positiveInteger('maxWsBufferedBytes', options.maxWsBufferedBytes ?? 16 * MIB),
    corsOrigins: options.corsOrigins ?? ['*'],
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TransportError(`${name} must be a positive integer number of bytes, got ${value}`);
  }
  return value;
}
