/**
 * The fallback transport on node:http and ws, for platforms where uWebSockets.js does not load
 * (or when `STRATA_RPC_TRANSPORT=node`). Request handling is the shared pipeline, so it answers
 * exactly like the uWS transport.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { Logger } from '../../log/logger.js';
import { BodyCollector } from './body.js';
import { HttpPipeline, type Exchange } from './pipeline.js';
import { RoutedTransport } from './routed-transport.js';
import {
  resolveTransportOptions,
  TransportError,
  type ResolvedTransportOptions,
  type TransportOptions,
  type WebSocketHandlers,
  type WsConnection,
} from './types.js';

/** Idle keep-alive connections are closed after this long, as uWS does. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** WebSockets are pinged this often; one that missed the previous pong is dropped (uWS: idleTimeout 120 s with pings). */
const HEARTBEAT_MS = 60_000;

/** HTTP and WebSocket serving on node:http + ws. */
export class NodeHttpTransport extends RoutedTransport {
  readonly kind = 'node' as const;
  readonly #server: Server;
  readonly #options: ResolvedTransportOptions;
  readonly #logger: Logger;
  readonly #pipeline: HttpPipeline;
  readonly #wsEndpoints = new Map<string, WebSocketServer>();
  readonly #sockets = new Set<Socket>();
  readonly #connections = new Set<NodeWsConnection>();
  #heartbeat: NodeJS.Timeout | undefined;
  #nextConnectionId = 1;

  constructor(options: TransportOptions = {}, logger: Logger = new Logger({ base: { module: 'rpc' } })) {
    super();
    this.#options = resolveTransportOptions(options);
    this.#logger = logger;
    this.#pipeline = new HttpPipeline(this.routes, this.#options, logger);
    this.#server = createServer((req, res) => this.#pipeline.serve(new NodeExchange(this, req, res)));
    this.#server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(req, socket, head));
  }

  override onWebSocket<S>(path: string, handlers: WebSocketHandlers<S>): void {
    this.assertNew('onWebSocket');
    if (this.#wsEndpoints.has(path)) throw new TransportError(`a WebSocket endpoint is already registered on ${path}; register each path once`);
    const server = new WebSocketServer({ noServer: true, maxPayload: this.#options.maxWsMessageBytes, perMessageDeflate: false, clientTracking: false });
    server.on('connection', (ws: WebSocket) => this.#accept(ws, handlers));
    this.#wsEndpoints.set(path, server);
  }

  override listen(host: string, port: number): Promise<number> {
    this.assertNew('listen');
    this.state = 'listening';
    if (this.#wsEndpoints.size > 0) {
      this.#heartbeat = setInterval(() => {
        for (const connection of this.#connections) connection.heartbeat();
      }, HEARTBEAT_MS).unref();
    }
    return new Promise((resolve, reject) => {
      const onError = (error: Error) =>
        reject(new TransportError(`cannot listen on ${host}:${port}: ${error.message}; free the address or configure another port`));
      this.#server.once('error', onError);
      this.#server.listen({ host, port, exclusive: true }, () => {
        this.#server.off('error', onError);
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
  }

  override async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasListening = this.state === 'listening';
    this.state = 'closed';
    clearInterval(this.#heartbeat);
    for (const connection of this.#connections) connection.terminate();
    for (const server of this.#wsEndpoints.values()) server.close();
    if (!wasListening) return;
    const stopped = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    // server.close() only stops accepting; keep-alive and upgraded sockets are ended here.
    for (const socket of this.#sockets) socket.destroy();
    await stopped;
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const server = this.#wsEndpoints.get(query < 0 ? url : url.slice(0, query));
    if (server === undefined || this.closed) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nConnection: close\r\n\r\nnot found\n');
      return;
    }
    server.handleUpgrade(req, socket, head, (ws) => server.emit('connection', ws, req));
  }

  #accept<S>(ws: WebSocket, handlers: WebSocketHandlers<S>): void {
    const connection = new NodeWsConnection(ws, this.#nextConnectionId++, this.#options.maxWsBufferedBytes);
    this.#connections.add(connection);
    const state = handlers.open(connection);
    ws.on('message', (data: RawData) => handlers.message(connection, rawDataText(data), state));
    ws.on('pong', () => connection.markAlive());
    // Oversized messages and protocol errors arrive here; ws then closes the socket itself.
    ws.on('error', (error: Error) => this.#logger.debug('WebSocket error', { connection: connection.id, error: error.message }));
    ws.on('close', () => {
      connection.markClosed();
      this.#connections.delete(connection);
      handlers.close?.(connection, state);
    });
  }

}

function rawDataText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** A node:http request/response pair adapted for the shared pipeline. */
class NodeExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  #answered = false;
  readonly #transport: NodeHttpTransport;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;

  constructor(transport: NodeHttpTransport, req: IncomingMessage, res: ServerResponse) {
    this.#transport = transport;
    this.#req = req;
    this.#res = res;
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    this.path = query < 0 ? url : url.slice(0, query);
    this.query = query < 0 ? '' : url.slice(query + 1);
  }

  get aborted(): boolean {
    return this.#transport.closed || this.#req.socket.destroyed;
  }

  header(name: string): string {
    const value = this.#req.headers[name];
    if (value === undefined) return '';
    return Array.isArray(value) ? value.join(', ') : value;
  }

  headers(): Record<string, string> {
    const all: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.#req.headers)) {
      if (value !== undefined) all[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return all;
  }

  readBody(maxBytes: number, done: (body: string) => void, tooLarge: () => void): void {
    const collector = new BodyCollector(maxBytes);
    let rejected = false;
    // After a rejection the data listener stays attached, so the rest of the body is drained
    // and the keep-alive connection stays usable (uWS does the same).
    this.#req.on('data', (chunk: Buffer) => {
      if (rejected) return;
      if (!collector.add(chunk)) {
        rejected = true;
        tooLarge();
      }
    });
    this.#req.on('end', () => {
      if (!rejected) done(collector.text());
    });
  }

  respond(status: number, headers: readonly string[], body: string | Uint8Array): void {
    if (this.#answered || this.aborted) return;
    this.#answered = true;
    // writeHead takes a flat [name, value, …] list. Without an explicit Content-Length, headers
    // passed to writeHead would make node fall back to chunked encoding.
    const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
    this.#res.writeHead(status, [...headers, 'Content-Length', String(length)]);
    this.#res.end(body);
  }
}

/** A ws WebSocket behind the transport-neutral interface. */
class NodeWsConnection implements WsConnection {
  readonly id: number;
  readonly #ws: WebSocket;
  readonly #maxBufferedBytes: number;
  #open = true;
  #alive = true;

  constructor(ws: WebSocket, id: number, maxBufferedBytes: number) {
    this.#ws = ws;
    this.id = id;
    this.#maxBufferedBytes = maxBufferedBytes;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  send(text: string): boolean {
    if (!this.#open) return false;
    // Same policy as uWS's closeOnBackpressureLimit: a reader this far behind is dropped.
    if (this.#ws.bufferedAmount > this.#maxBufferedBytes) {
      this.terminate();
      return false;
    }
    this.#ws.send(text);
    return true;
  }

  close(code = 1000, reason = ''): void {
    if (this.#open) this.#ws.close(code, reason);
  }

  /** Pings, or drops the socket when the previous ping went unanswered. */
  heartbeat(): void {
    if (!this.#alive) {
      this.terminate();
      return;
    }
    this.#alive = false;
    this.#ws.ping();
  }

  /** Records a pong. */
  markAlive(): void {
    this.#alive = true;
  }

  /** Drops the socket without a close handshake. */
  terminate(): void {
    this.#open = false;
    this.#ws.terminate();
  }

  /** Called from the close event; after this, sends are no-ops. */
  markClosed(): void {
    this.#open = false;
  }
}
