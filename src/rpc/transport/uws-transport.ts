/**
 * The uWebSockets.js transport: the fast path. uWS hands out request objects that are only
 * valid during the callback and response objects that die on abort, so every request gets an
 * abort handler, headers are read synchronously, and late answers check `aborted` first.
 *
 * One difference from node:http comes from uWS itself: an HTTP/1.1 pipelined request that
 * arrives while an earlier answer on the same connection is still pending (an async method)
 * makes uWS close the connection. Browsers, undici, Go and the usual load tools do not pipeline.
 */
import { createRequire } from 'node:module';
import type * as Uws from 'uwebsockets';
import { Logger } from '../../log/logger.js';
import { BodyCollector } from './body.js';
import { HttpPipeline, type Exchange } from './pipeline.js';
import { RoutedTransport } from './routed-transport.js';
import { statusLine } from './status.js';
import {
  resolveTransportOptions,
  TransportError,
  type ResolvedTransportOptions,
  type TransportOptions,
  type WebSocketHandlers,
  type WsConnection,
} from './types.js';

/** The uWebSockets.js module's API. */
export type UwsModule = typeof Uws;

/** Loads uWebSockets.js; throws the loader's error when this platform or Node version has no binary. */
export function loadUws(): UwsModule {
  return createRequire(import.meta.url)('uwebsockets') as UwsModule;
}

/** Bodies at least this large are streamed with tryEnd/onWritable instead of copied whole into uWS. */
const STREAM_THRESHOLD = 64 * 1024;

/** uWS's listen flag that refuses a port another socket holds (it shares ports by default). */
const LISTEN_EXCLUSIVE_PORT = 1;

/** The four-argument listen overload exists in the binary but not in its typings. */
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  cb: (listenSocket: Uws.us_listen_socket | false) => void,
) => Uws.TemplatedApp;

/** What we keep on each uWS WebSocket (uWS returns the socket object itself as its user data). */
interface SocketSlot {
  connection?: UwsWsConnection;
  state?: unknown;
}

/** HTTP and WebSocket serving on uWebSockets.js. */
export class UwsTransport extends RoutedTransport {
  readonly kind = 'uws' as const;
  readonly #uws: UwsModule;
  readonly #app: Uws.TemplatedApp;
  readonly #options: ResolvedTransportOptions;
  readonly #pipeline: HttpPipeline;
  readonly #connections = new Set<UwsWsConnection>();
  #nextConnectionId = 1;

  constructor(options: TransportOptions = {}, logger: Logger = new Logger({ base: { module: 'rpc' } }), uws: UwsModule = loadUws()) {
    super();
    this.#uws = uws;
    this.#app = uws.App();
    this.#options = resolveTransportOptions(options);
    this.#pipeline = new HttpPipeline(this.routes, this.#options, logger);
  }

  override onWebSocket<S>(path: string, handlers: WebSocketHandlers<S>): void {
    this.assertNew('onWebSocket');
    this.#app.ws<SocketSlot>(path, {
      compression: this.#uws.DISABLED,
      maxPayloadLength: this.#options.maxWsMessageBytes,
      maxBackpressure: this.#options.maxWsBufferedBytes,
      closeOnBackpressureLimit: 1,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      open: (ws) => {
        const connection = new UwsWsConnection(ws, this.#nextConnectionId++);
        const slot = ws.getUserData();
        slot.connection = connection;
        this.#connections.add(connection);
        slot.state = handlers.open(connection);
      },
      message: (ws, message) => {
        const slot = ws.getUserData();
        handlers.message(slot.connection!, Buffer.from(message).toString('utf8'), slot.state as S);
      },
      close: (ws) => {
        const slot = ws.getUserData();
        const connection = slot.connection!;
        connection.markClosed();
        this.#connections.delete(connection);
        handlers.close?.(connection, slot.state as S);
      },
    });
  }

  override listen(host: string, port: number): Promise<number> {
    this.assertNew('listen');
    this.state = 'listening';
    // Registered last so WebSocket routes take their paths first; every other request goes
    // through the shared pipeline, which owns 404 and 405.
    this.#app.any('/*', (res, req) => this.#pipeline.serve(new UwsExchange(this, res, req)));
    return new Promise((resolve, reject) => {
      const listen = this.#app.listen.bind(this.#app) as unknown as ListenWithOptions;
      listen(host, port, LISTEN_EXCLUSIVE_PORT, (listenSocket) => {
        if (listenSocket === false) {
          reject(new TransportError(`cannot listen on ${host}:${port}: the address is in use or not available here; free it or configure another port`));
          return;
        }
        resolve(this.#uws.us_socket_local_port(listenSocket as unknown as Uws.us_socket));
      });
    });
  }

  override async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    // Closes the listen socket and every connection; WebSocket close handlers run from here.
    this.#app.close();
    for (const connection of this.#connections) connection.markClosed();
    this.#connections.clear();
  }

}

/** A uWS request/response pair adapted for the shared pipeline. */
class UwsExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  #aborted = false;
  #answered = false;
  readonly #transport: UwsTransport;
  readonly #res: Uws.HttpResponse;
  readonly #req: Uws.HttpRequest;

  constructor(transport: UwsTransport, res: Uws.HttpResponse, req: Uws.HttpRequest) {
    this.#transport = transport;
    this.#res = res;
    this.#req = req;
    this.method = req.getCaseSensitiveMethod();
    this.path = req.getUrl();
    this.query = req.getQuery() ?? '';
    // uWS requires an abort handler on any response not ended inside this callback.
    res.onAborted(() => {
      this.#aborted = true;
    });
  }

  get aborted(): boolean {
    return this.#aborted || this.#transport.closed;
  }

  header(name: string): string {
    return this.#req.getHeader(name);
  }

  headers(): Record<string, string> {
    const all: Record<string, string> = {};
    this.#req.forEach((name, value) => {
      all[name] = value;
    });
    return all;
  }

  readBody(maxBytes: number, done: (body: string) => void, tooLarge: () => void): void {
    let collector: BodyCollector | undefined;
    let rejected = false;
    this.#res.onData((chunk, isLast) => {
      if (rejected) return;
      // uWS neuters the chunk when this callback returns: decode a one-chunk body in place,
      // copy chunks of a longer one.
      if (collector === undefined && isLast) {
        if (chunk.byteLength > maxBytes) {
          rejected = true;
          tooLarge();
        } else {
          done(Buffer.from(chunk).toString('utf8'));
        }
        return;
      }
      collector ??= new BodyCollector(maxBytes);
      if (!collector.add(Buffer.from(new Uint8Array(chunk)))) {
        rejected = true;
        tooLarge();
        return;
      }
      if (isLast) done(collector.text());
    });
  }

  respond(status: number, headers: readonly string[], body: string | Uint8Array): void {
    // uWS must never see a second answer, nor a write to an aborted response.
    if (this.#answered || this.aborted) return;
    this.#answered = true;
    const res = this.#res;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      for (let i = 0; i < headers.length; i += 2) res.writeHeader(headers[i]!, headers[i + 1]!);
      if (typeof body === 'string' ? body.length < STREAM_THRESHOLD / 3 : body.byteLength < STREAM_THRESHOLD) {
        res.end(body);
      } else {
        streamBody(res, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
      }
    });
  }
}

/** Sends a large body as fast as the client reads it, resuming on writable events. */
function streamBody(res: Uws.HttpResponse, bytes: Uint8Array): void {
  const total = bytes.byteLength;
  const start = res.getWriteOffset();
  let finished = false;
  res.onAborted(() => {
    finished = true;
  });
  const [, done] = res.tryEnd(bytes, total);
  if (done) return;
  res.onWritable((offset) => {
    if (finished) return true;
    const [ok, doneNow] = res.tryEnd(bytes.subarray(offset - start), total);
    if (doneNow) finished = true;
    return ok;
  });
}

/** A uWS WebSocket behind the transport-neutral interface. */
class UwsWsConnection implements WsConnection {
  readonly id: number;
  readonly #ws: Uws.WebSocket<SocketSlot>;
  #open = true;

  constructor(ws: Uws.WebSocket<SocketSlot>, id: number) {
    this.#ws = ws;
    this.id = id;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  send(text: string): boolean {
    // A closed uWS socket throws on any access, so the flag is checked first.
    if (!this.#open) return false;
    let status = 0;
    this.#ws.cork(() => {
      status = this.#ws.send(text, false);
    });
    // 2 = dropped over maxBackpressure; uWS then closes the socket (closeOnBackpressureLimit).
    return status !== 2;
  }

  close(code = 1000, reason = ''): void {
    if (!this.#open) return;
    this.#ws.end(code, reason);
  }

  /** Called from the close handler; after this the socket must not be touched. */
  markClosed(): void {
    this.#open = false;
  }
}
