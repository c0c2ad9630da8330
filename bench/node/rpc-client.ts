/** A small JSON-RPC 2.0 client over keep-alive node:http, for setup, submission and polling. */
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';

/** The server answered with a JSON-RPC error or a non-200 status. */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(`${method}: ${message}`);
    this.name = 'RpcCallError';
  }
}

/**
 * Sockets that already have the listener below. A server that answers early (413 for an
 * oversized body) and resets the connection can fail the body's write after the response has
 * been handled; that error is emitted on the socket, not the request, and without a listener
 * it would end the process.
 */
const guardedSockets = new WeakSet<Socket>();

/**
 * How long a kept-alive socket may sit idle before the client closes it: under the node's
 * 10 s keep-alive timeout, so a request never goes out on a socket the server is closing at
 * that moment (which the client would see as ECONNRESET). The agent only ends sockets that
 * are idle; a request in flight is not timed by it.
 */
const IDLE_SOCKET_MS = 5_000;

/** JSON-RPC calls to one HTTP endpoint on at most `connections` keep-alive sockets. */
export class RpcClient {
  readonly #agent: Agent;
  #id = 0;

  constructor(
    readonly port: number,
    connections = 8,
  ) {
    this.#agent = new Agent({ keepAlive: true, maxSockets: connections, timeout: IDLE_SOCKET_MS });
  }

  /** Calls `method` and resolves with its result. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const { status, text } = await this.post(JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }));
    if (status !== 200) throw new RpcCallError(method, `HTTP ${status}: ${text.slice(0, 300)}`);
    let reply: { result?: T; error?: { message?: string } };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      throw new RpcCallError(method, `unparsable reply: ${text.slice(0, 300)}`);
    }
    if (reply.error) throw new RpcCallError(method, reply.error.message ?? JSON.stringify(reply.error));
    return reply.result as T;
  }

  /**
   * POSTs `body` as it is (which need not be valid JSON) and resolves with the HTTP status and
   * the answer's text; rejects on a transport error, or once the socket has been idle for
   * `timeoutMs` (0 = never).
   */
  post(body: string | Buffer, timeoutMs = 0): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: '/',
          agent: this.#agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.on('socket', (socket) => {
        if (guardedSockets.has(socket)) return;
        guardedSockets.add(socket);
        socket.on('error', () => {});
      });
      if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.end(body);
    });
  }

  /** Closes the idle sockets. */
  close(): void {
    this.#agent.destroy();
  }
}
