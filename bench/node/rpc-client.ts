/** A small JSON-RPC 2.0 client over keep-alive node:http, for setup, submission and polling. */
import { Agent, request } from 'node:http';

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

/** JSON-RPC calls to one HTTP endpoint on at most `connections` keep-alive sockets. */
export class RpcClient {
  readonly #agent: Agent;
  #id = 0;

  constructor(
    readonly port: number,
    connections = 8,
  ) {
    this.#agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  /** Calls `method` and resolves with its result. */
  call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params });
    return new Promise<T>((resolve, reject) => {
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
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) return reject(new RpcCallError(method, `HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
            try {
              const reply = JSON.parse(text) as { result?: T; error?: { message?: string } };
              if (reply.error) reject(new RpcCallError(method, reply.error.message ?? JSON.stringify(reply.error)));
              else resolve(reply.result as T);
            } catch {
              reject(new RpcCallError(method, `unparsable reply: ${text.slice(0, 300)}`));
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Closes the idle sockets. */
  close(): void {
    this.#agent.destroy();
  }
}
