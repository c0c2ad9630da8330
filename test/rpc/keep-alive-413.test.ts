/**
 * A keep-alive client that sends a body over max-body-bytes gets the 413 answer, and its next
 * requests work, on the same connection or a new one: never a reset. Run against both
 * transports with node's own keep-alive agent, oversized and normal requests interleaved on a
 * few sockets, many times over.
 */
import t from 'tap';
import { Agent, request } from 'node:http';
import type { MethodTable } from '../../src/rpc/jsonrpc/index.js';
import { startServer, TRANSPORTS } from './fixtures/helpers.js';

const LIMIT = 1024 * 1024;

const methods: MethodTable = { eth_chainId: () => '0x1', echo: (params) => params };

interface Reply {
  status: number;
  body: string;
  connection: string | undefined;
}

/** One POST over `agent`; `chunked` sends the body without a Content-Length. */
function post(agent: Agent, port: number, body: string, chunked: boolean): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: '127.0.0.1', port, method: 'POST', path: '/', headers: chunked ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), connection: res.headers.connection }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (chunked) {
      // Several writes, so the server sees the body arrive in pieces.
      for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.slice(i, i + 16 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

for (const kind of TRANSPORTS) {
  t.test(`${kind}: 413 on a keep-alive connection is delivered and the next requests work`, async (t) => {
    const server = await startServer(kind, methods, { transport: { maxBodyBytes: LIMIT } });
    t.teardown(() => server.transport.close());
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    t.teardown(() => agent.destroy());
    const oversized = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(LIMIT * 4)] });
    const normal = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });

    const failures: string[] = [];
    let rejected = 0;
    let served = 0;
    // Eight clients on four sockets, each alternating oversized (declared or chunked) and
    // normal requests, so rejected and accepted requests follow each other on every socket.
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let round = 0; round < 10; round++) {
          const id = client * 1000 + round;
          try {
            const big = await post(agent, server.port, oversized, (round + client) % 2 === 0);
            if (big.status !== 413 || !/content length too large/.test(big.body)) failures.push(`oversized ${id}: ${big.status} ${big.body.slice(0, 80)}`);
            else rejected++;
            const small = await post(agent, server.port, normal(id), false);
            if (small.status !== 200 || small.body !== `{"jsonrpc":"2.0","id":${id},"result":"0x1"}`) failures.push(`normal ${id}: ${small.status} ${small.body}`);
            else served++;
          } catch (error) {
            failures.push(`round ${id}: ${(error as Error).message}`);
          }
        }
      }),
    );
    t.same(failures.slice(0, 5), [], `no request failed (${failures.length} did)`);
    t.equal(rejected, 80, 'every oversized request got its 413');
    t.equal(served, 80, 'every request after a 413 was answered');
  });
}
