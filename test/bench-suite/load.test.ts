/** The raw-socket load generator's send-each-once mode against a real HTTP server on loopback. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { runLoad, sendEach } from '../../bench/rpc/load.js';

/** A JSON-RPC-shaped server that records each request's id and refuses odd ids, or closes on id 13. */
async function recordingServer(): Promise<{ server: Server; port: number; ids: number[] }> {
  const ids: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      ids.push(id);
      if (id === 13) {
        req.socket.destroy();
        return;
      }
      const answer = id % 2 === 0 ? { jsonrpc: '2.0', id, result: '0x1' } : { jsonrpc: '2.0', id, error: { code: -32000, message: `odd ${id}` } };
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, ids };
}

t.test('sendEach sends every body exactly once and counts refusals and lost requests', async (t) => {
  const { server, port, ids } = await recordingServer();
  t.teardown(() => server.close());
  const bodies = Array.from({ length: 40 }, (_, id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'x', params: [] }));
  const result = await sendEach({ port, bodies, connections: 6, timeoutMs: 10_000 });
  t.same([...ids].sort((a, b) => a - b), [...Array(40).keys()], 'each body reached the server once');
  t.equal(result.ok, 20, 'the even ids were answered without an error');
  t.equal(result.errors, 20, '19 refusals and the request whose connection was closed');
  t.match(result.firstError, /odd \d+|the connection closed/, 'the first refusal is kept');
  t.ok(result.seconds > 0 && result.p99Ms >= result.p50Ms, 'timing is reported');
});

t.test('sendEach with more connections than bodies, and with none', async (t) => {
  const { server, port, ids } = await recordingServer();
  t.teardown(() => server.close());
  const two = await sendEach({ port, bodies: ['{"id":2}', '{"id":4}'], connections: 8, timeoutMs: 10_000 });
  t.equal(two.ok, 2);
  const none = await sendEach({ port, bodies: [], connections: 8, timeoutMs: 10_000 });
  t.equal(none.ok + none.errors, 0, 'nothing to send is nothing sent');
  t.same(ids, [2, 4]);
});

t.test('runLoad cycles through its bodies for the duration', async (t) => {
  const { server, port, ids } = await recordingServer();
  t.teardown(() => server.close());
  const result = await runLoad({ port, body: '', bodies: ['{"id":0}', '{"id":2}'], connections: 2, durationMs: 300 });
  t.ok(result.requests > 10, `it kept sending (${result.requests} answered)`);
  t.equal(result.errors, 0);
  t.ok(ids.includes(0) && ids.includes(2), 'both bodies were sent');
});
