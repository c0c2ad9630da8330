/**
 * The transport suite, run against both implementations (uWebSockets.js and node:http + ws) on
 * 127.0.0.1 with real clients: fetch, raw sockets and `ws`. Both must behave the same.
 */
import t from 'tap';
import { once } from 'node:events';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { RpcError, type MethodTable } from '../../src/rpc/jsonrpc/index.js';
import { TransportError, type WsConnection } from '../../src/rpc/transport/index.js';
import { delay, eventually, Gate, makeTransport, postBytes, RawClient, startServer, TRANSPORTS } from './fixtures/helpers.js';
import { WsClient } from './fixtures/ws-client.js';

/** A call body. */
function call(method: string, params: unknown[] = [], id: unknown = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Methods shared by the cases; `gate` holds `gated` calls, `connections` collects WebSocket callers. */
function methods(state: { gate: Gate; connections: WsConnection[]; transports: string[] }): MethodTable {
  return {
    eth_chainId: () => '0x1',
    echo: (params) => params,
    slow_echo: async (params) => (await delay(5), params),
    gated: async () => (await state.gate.wait(), 'released'),
    big: (params) => 'é'.repeat(Number(params[0])) + 'end',
    revert: () => {
      throw RpcError.executionReverted('0x08c379a0', 'not enough');
    },
    crash: () => {
      throw new TypeError('bug');
    },
    fail: () => {
      throw new Error('header not found');
    },
    need_one: (params) => {
      if (params.length !== 1) throw RpcError.invalidParams('missing value for required argument 0');
      return params[0];
    },
    subscribe: (_params, ctx) => {
      state.transports.push(ctx.transport);
      if (ctx.connection) state.connections.push(ctx.connection);
      return '0xabc';
    },
  };
}

function freshState() {
  return { gate: new Gate(), connections: [] as WsConnection[], transports: [] as string[] };
}

for (const kind of TRANSPORTS) {
  t.test(`${kind} transport`, async (t) => {
    t.test('single calls: 200, application/json, the result', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      t.equal(server.transport.kind, kind);
      t.ok(server.port > 0, 'port 0 bound a real port');
      const reply = await server.post(call('eth_chainId'));
      t.equal(reply.status, 200);
      t.equal(reply.contentType, 'application/json');
      t.equal(reply.text, '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
      t.same(JSON.parse((await server.post(call('slow_echo', ['a', 1], 'x'))).text), { jsonrpc: '2.0', id: 'x', result: ['a', 1] });
    });

    t.test('batches: mixed valid and invalid members, notifications left out; notifications alone get an empty 200', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const batch = `[${call('echo', [1], 1)},{"jsonrpc":"2.0","method":"echo"},${call('nope', [], 2)},null,${call('slow_echo', [3], 3)}]`;
      const reply = await server.post(batch);
      t.equal(reply.status, 200);
      t.same(JSON.parse(reply.text), [
        { jsonrpc: '2.0', id: 1, result: [1] },
        { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'the method nope does not exist/is not available' } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
        { jsonrpc: '2.0', id: 3, result: [3] },
      ]);
      const silent = await server.post('[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"slow_echo"}]');
      t.equal(silent.status, 200);
      t.equal(silent.text, '');
      const single = await server.post('{"jsonrpc":"2.0","method":"echo","params":[1]}');
      t.equal(single.status, 200);
      t.equal(single.text, '');
    });

    t.test('every error code reaches the client with its message', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const error = async (body: string) => (JSON.parse((await server.post(body)).text) as { error: unknown }).error;
      t.same(await error('{"jsonrpc":"2.0",'), { code: -32700, message: 'parse error' });
      t.same(await error('{"jsonrpc":"1.0","id":1,"method":"echo"}'), { code: -32600, message: 'invalid request' });
      t.same(await error('[]'), { code: -32600, message: 'empty batch' });
      t.same(await error(call('eth_nope')), { code: -32601, message: 'the method eth_nope does not exist/is not available' });
      t.same(await error('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}'), { code: -32602, message: 'non-array args' });
      t.same(await error(call('need_one')), { code: -32602, message: 'missing value for required argument 0' });
      t.same(await error(call('crash')), { code: -32603, message: 'method handler crashed' });
      t.same(await error(call('fail')), { code: -32000, message: 'header not found' });
      t.same(await error(call('revert')), { code: 3, message: 'execution reverted: not enough', data: '0x08c379a0' });
    });

    t.test('a body over the limit gets 413 with a JSON-RPC error (default limit 5 MiB)', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(6 * 1024 * 1024)] });
      const reply = await server.post(huge);
      t.equal(reply.status, 413);
      t.equal(reply.contentType, 'application/json');
      const body = JSON.parse(reply.text) as { id: unknown; error: { code: number; message: string } };
      t.equal(body.id, null);
      t.equal(body.error.code, -32005);
      t.match(body.error.message, new RegExp(`content length too large \\(${Buffer.byteLength(huge)}>5242880\\)`));
      const fits = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'echo', params: ['y'.repeat(4 * 1024 * 1024)] });
      const ok = await server.post(fits);
      t.equal(ok.status, 200, 'a body under the limit passes');
      t.equal((JSON.parse(ok.text) as { result: string[] }).result[0]!.length, 4 * 1024 * 1024);
    });

    t.test('413 for declared and for chunked oversize bodies; the connection stays usable after', async (t) => {
      const server = await startServer(kind, methods(freshState()), { transport: { maxBodyBytes: 1000 } });
      t.teardown(() => server.transport.close());
      const client = await RawClient.connect(server.port);
      t.teardown(() => client.destroy());
      const padded = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['p'.repeat(3000)] });
      client.write(postBytes(padded));
      const declared = await client.read();
      t.equal(declared.status, 413);
      t.match(declared.body.toString(), /content length too large \(\d+>1000\)/);

      client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let i = 0; i < padded.length; i += 500) {
        const part = padded.slice(i, i + 500);
        client.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
        await delay(2);
      }
      client.write('0\r\n\r\n');
      const chunked = await client.read();
      t.equal(chunked.status, 413);
      t.match(chunked.body.toString(), /content length too large \(more than 1000 bytes\)/);

      client.write(postBytes(call('eth_chainId', [], 7)));
      const after = await client.read();
      t.equal(after.status, 200, 'the same keep-alive connection serves the next request');
      t.equal(after.body.toString(), '{"jsonrpc":"2.0","id":7,"result":"0x1"}');
      const exact = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'echo', params: [''] });
      const atLimit = exact.replace('""', `"${'q'.repeat(1000 - Buffer.byteLength(exact))}"`);
      t.equal(Buffer.byteLength(atLimit), 1000);
      client.write(postBytes(atLimit));
      t.equal((await client.read()).status, 200, 'a body of exactly the limit is accepted');
    });

    t.test("a batch over the limit gets geth's batch too large", async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const batch = `[${Array.from({ length: 1001 }, (_, i) => call('eth_chainId', [], i + 10)).join(',')}]`;
      const reply = await server.post(batch);
      t.equal(reply.status, 200);
      t.same(JSON.parse(reply.text), [{ jsonrpc: '2.0', id: 10, error: { code: -32600, message: 'batch too large' } }]);
      const full = JSON.parse((await server.post(`[${Array.from({ length: 1000 }, (_, i) => call('eth_chainId', [], i)).join(',')}]`)).text) as unknown[];
      t.equal(full.length, 1000);
    });

    t.test('requests past the in-flight limit get -32005 at once while the others wait', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state), { dispatcher: { maxInFlight: 3 } });
      t.teardown(() => server.transport.close());
      const held = [1, 2, 3].map((id) => server.post(call('gated', [], id)));
      t.ok(await eventually(() => server.dispatcher.inFlight === 3), 'three calls in flight');
      const refused = await server.post(call('gated', [], 4));
      t.equal(refused.status, 200);
      const body = JSON.parse(refused.text) as { id: number; error: { code: number; message: string } };
      t.equal(body.id, 4);
      t.equal(body.error.code, -32005);
      t.match(body.error.message, /server busy: 3 requests already in flight/);
      state.gate.open();
      const answers = await Promise.all(held);
      t.same(answers.map((a) => JSON.parse(a.text)), [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result: 'released' })));
      t.same(JSON.parse((await server.post(call('gated', [], 5))).text), { jsonrpc: '2.0', id: 5, result: 'released' });
    });

    t.test('keep-alive: one connection carries many requests, sequential and pipelined', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const client = await RawClient.connect(server.port);
      t.teardown(() => client.destroy());
      for (let id = 1; id <= 5; id++) {
        client.write(postBytes(call(id % 2 === 0 ? 'slow_echo' : 'echo', [id], id)));
        const reply = await client.read();
        t.equal(reply.status, 200);
        t.same(JSON.parse(reply.body.toString()), { jsonrpc: '2.0', id, result: [id] });
      }
      // Pipelining with synchronous answers (uWS closes a pipelined connection when an answer is asynchronous).
      client.write(postBytes(call('echo', ['a'], 'a')) + postBytes(call('eth_chainId', [], 'b')));
      t.same(JSON.parse((await client.read()).body.toString()), { jsonrpc: '2.0', id: 'a', result: ['a'] });
      t.same(JSON.parse((await client.read()).body.toString()), { jsonrpc: '2.0', id: 'b', result: '0x1' });
      t.notOk(client.closed, 'still open');
    });

    t.test('chunked uploads and bodies split across many writes are reassembled', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const client = await RawClient.connect(server.port);
      t.teardown(() => client.destroy());
      const body = call('echo', ['ünïcödé', 'x'.repeat(20_000)], 'chunked');
      const bytes = Buffer.from(body);
      client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      // Chunk boundaries fall inside multi-byte characters on purpose.
      for (let at = 0; at < bytes.length; at += 997) {
        const part = bytes.subarray(at, at + 997);
        client.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
        await delay(1);
      }
      client.write('0\r\n\r\n');
      const chunked = await client.read();
      t.equal(chunked.status, 200);
      t.same(JSON.parse(chunked.body.toString()), { jsonrpc: '2.0', id: 'chunked', result: ['ünïcödé', 'x'.repeat(20_000)] });

      const split = Buffer.from(postBytes(call('echo', ['ß'.repeat(5000)], 'split')));
      for (let at = 0; at < split.length; at += 333) {
        client.write(split.subarray(at, at + 333));
        await delay(1);
      }
      const reassembled = await client.read();
      t.same(JSON.parse(reassembled.body.toString()), { jsonrpc: '2.0', id: 'split', result: ['ß'.repeat(5000)] });
    });

    t.test('aborted requests: a client that leaves early does not disturb the server', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state));
      t.teardown(() => server.transport.close());
      const waiting = await RawClient.connect(server.port);
      waiting.write(postBytes(call('gated')));
      t.ok(await eventually(() => server.dispatcher.inFlight === 1));
      waiting.destroy();
      const midBody = await RawClient.connect(server.port);
      midBody.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"jsonrpc":');
      await delay(20);
      midBody.destroy();
      await delay(50);
      state.gate.open();
      t.ok(await eventually(() => server.dispatcher.inFlight === 0), 'the abandoned call finished');
      await delay(20);
      const reply = await server.post(call('eth_chainId'));
      t.equal(reply.status, 200, 'the server still answers');
      t.notOk(server.logs.some((r) => r.level === 'error'), 'and logged no error');
    });

    t.test('large responses arrive whole to a slow reader without blocking other clients', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const client = await RawClient.connect(server.port);
      t.teardown(() => client.destroy());
      const characters = 4 * 1024 * 1024; // 8 MiB of two-byte characters
      client.socket.pause();
      client.write(postBytes(call('big', [characters], 'big')));
      await delay(300);
      const other = await server.post(call('eth_chainId', [], 'other'));
      t.equal(other.text, '{"jsonrpc":"2.0","id":"other","result":"0x1"}', 'another client is served meanwhile');
      client.socket.resume();
      const reply = await client.read(30_000);
      t.equal(reply.status, 200);
      t.equal(Number(reply.headers['content-length']), reply.body.byteLength);
      const parsed = JSON.parse(reply.body.toString()) as { id: string; result: string };
      t.equal(parsed.id, 'big');
      t.equal(parsed.result.length, characters + 3);
      t.ok(parsed.result === 'é'.repeat(characters) + 'end', 'every byte in order');
      client.write(postBytes(call('eth_chainId', [], 'next')));
      t.equal((await client.read()).body.toString(), '{"jsonrpc":"2.0","id":"next","result":"0x1"}', 'and the connection goes on');
    });

    t.test('404 for unknown paths, 405 with Allow for a wrong method', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const missing = await fetch(`${server.url}/nowhere`, { method: 'POST', body: call('eth_chainId') });
      t.equal(missing.status, 404);
      t.equal(await missing.text(), 'not found\n');
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const wrong = await fetch(`${server.url}/`, { method });
        t.equal(wrong.status, 405, method);
        t.equal(wrong.headers.get('allow'), 'POST, OPTIONS');
        t.equal(await wrong.text(), 'method not allowed\n');
      }
    });

    t.test('plain routes: query, headers, body, async replies, content types, failures', async (t) => {
      const server = await startServer(kind, methods(freshState()), {
        setup(transport) {
          transport.route('GET', '/status', (req) => ({
            status: 200,
            body: JSON.stringify({ path: req.path, query: req.query, probe: req.headers['x-probe'] ?? '' }),
          }));
          transport.route('GET', '/lag_status', async () => (await delay(2), { status: 417, body: '{"lag":"12"}' }));
          transport.route('GET', '/metrics', () => ({
            status: 200,
            body: '# TYPE up gauge\nup 1\n',
            contentType: 'text/plain; version=0.0.4',
            headers: { 'Cache-Control': 'no-cache' },
          }));
          transport.route('POST', '/echo', (req) => ({ status: 201, body: Buffer.from(req.body), contentType: 'text/plain' }));
          transport.route('GET', '/fails', () => {
            throw new Error('route bug');
          });
          transport.route('GET', '/rejects', async () => Promise.reject(new Error('async route bug')));
        },
      });
      t.teardown(() => server.transport.close());
      const status = await fetch(`${server.url}/status?height=5&x=1`, { headers: { 'x-probe': 'p1' } });
      t.equal(status.status, 200);
      t.equal(status.headers.get('content-type'), 'application/json');
      t.same(await status.json(), { path: '/status', query: 'height=5&x=1', probe: 'p1' });
      const lag = await fetch(`${server.url}/lag_status`);
      t.equal(lag.status, 417);
      t.same(await lag.json(), { lag: '12' });
      const metrics = await fetch(`${server.url}/metrics`);
      t.equal(metrics.headers.get('content-type'), 'text/plain; version=0.0.4');
      t.equal(metrics.headers.get('cache-control'), 'no-cache');
      t.equal(await metrics.text(), '# TYPE up gauge\nup 1\n');
      const echo = await fetch(`${server.url}/echo`, { method: 'POST', body: 'héllo' });
      t.equal(echo.status, 201);
      t.equal(await echo.text(), 'héllo');
      const wrong = await fetch(`${server.url}/status`, { method: 'POST', body: '{}' });
      t.equal(wrong.status, 405);
      t.equal(wrong.headers.get('allow'), 'GET, OPTIONS');
      for (const path of ['/fails', '/rejects']) {
        const failed = await fetch(`${server.url}${path}`);
        t.equal(failed.status, 500, path);
        t.match(await failed.text(), /internal server error; see the node log/);
      }
      t.equal(server.logs.filter((r) => r.level === 'error').length, 2, 'route failures are logged');
    });

    t.test('CORS: preflight and allow-origin, open by default', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const preflight = await fetch(`${server.url}/`, {
        method: 'OPTIONS',
        headers: { origin: 'https://dapp.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-client' },
      });
      t.equal(preflight.status, 204);
      t.equal(preflight.headers.get('access-control-allow-origin'), '*');
      t.equal(preflight.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
      t.equal(preflight.headers.get('access-control-allow-headers'), 'content-type,x-client');
      t.equal(preflight.headers.get('access-control-max-age'), '600');
      const post = await fetch(`${server.url}/`, { method: 'POST', body: call('eth_chainId'), headers: { origin: 'https://dapp.example' } });
      t.equal(post.headers.get('access-control-allow-origin'), '*');
      const unknown = await fetch(`${server.url}/elsewhere`, { method: 'OPTIONS' });
      t.equal(unknown.status, 404, 'no preflight for unknown paths');
    });

    t.test('CORS: a configured origin list echoes allowed origins only', async (t) => {
      const server = await startServer(kind, methods(freshState()), { transport: { corsOrigins: ['https://app.example'] } });
      t.teardown(() => server.transport.close());
      const allowed = await fetch(`${server.url}/`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
      t.equal(allowed.status, 204);
      t.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
      t.equal(allowed.headers.get('vary'), 'Origin');
      const denied = await fetch(`${server.url}/`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
      t.equal(denied.headers.get('access-control-allow-origin'), null);
      const post = await fetch(`${server.url}/`, { method: 'POST', body: call('eth_chainId'), headers: { origin: 'https://app.example' } });
      t.equal(post.headers.get('access-control-allow-origin'), 'https://app.example');
      const otherPost = await fetch(`${server.url}/`, { method: 'POST', body: call('eth_chainId'), headers: { origin: 'https://evil.example' } });
      t.equal(otherPost.headers.get('access-control-allow-origin'), null);
      t.equal(otherPost.status, 200, 'the call itself is still answered');
    });

    t.test('WebSocket: calls, batches, notifications and server push', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state));
      t.teardown(() => server.transport.close());
      const ws = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      t.teardown(() => ws.close());
      ws.send(call('eth_chainId', [], 1));
      t.same(await ws.next(), { jsonrpc: '2.0', id: 1, result: '0x1' });
      ws.send(`[${call('echo', ['a'], 2)},${call('slow_echo', ['b'], 3)}]`);
      t.same(await ws.next(), [
        { jsonrpc: '2.0', id: 2, result: ['a'] },
        { jsonrpc: '2.0', id: 3, result: ['b'] },
      ]);
      ws.send('{"jsonrpc":"2.0","method":"echo","params":[1]}');
      ws.send('not json');
      t.same(await ws.next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }, 'the notification got nothing');
      ws.send(call('subscribe', ['newHeads'], 4));
      t.same(await ws.next(), { jsonrpc: '2.0', id: 4, result: '0xabc' });
      t.same(state.transports, ['ws']);
      const connection = state.connections[0]!;
      t.ok(connection.isOpen);
      const push = { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0xabc', result: { number: '0x10' } } };
      await delay(10);
      t.equal(connection.send(JSON.stringify(push)), true, 'a push from outside any request');
      t.same(await ws.next(), push);
      ws.close();
      t.ok(await eventually(() => !connection.isOpen), 'the server sees the close');
      t.equal(connection.send('{}'), false, 'sending on a closed connection is refused, not a crash');
    });

    t.test('WebSocket: the server can close a connection; a message over the limit closes it', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state), { transport: { maxWsMessageBytes: 1024 } });
      t.teardown(() => server.transport.close());
      const first = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      first.send(call('subscribe'));
      await first.next();
      state.connections[0]!.close(4000, 'bye');
      t.equal(await first.closed(), 4000);
      const second = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      second.send(call('echo', ['z'.repeat(2000)]));
      // ws sends a 1009 close frame; uWS drops the TCP connection, which the client reports as 1006.
      t.equal(await second.closed(), kind === 'node' ? 1009 : 1006);
      const third = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      t.teardown(() => third.close());
      third.send(call('eth_chainId'));
      t.same(await third.next(), { jsonrpc: '2.0', id: 1, result: '0x1' }, 'other connections are unaffected');
    });

    t.test('WebSocket: a reader too slow for the send buffer limit is refused and dropped', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state), { transport: { maxWsBufferedBytes: 256 * 1024 } });
      t.teardown(() => server.transport.close());
      const ws = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      ws.send(call('subscribe'));
      await ws.next();
      ws.pauseReading();
      const connection = state.connections[0]!;
      const message = JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { result: 'y'.repeat(32 * 1024) } });
      let accepted = 0;
      // Past the kernel's socket buffers, the queue grows until it passes 256 KiB.
      while (accepted < 10_000 && connection.send(message)) {
        accepted++;
        if (accepted % 50 === 0) await delay(1);
      }
      t.ok(accepted < 10_000, `refused after ${accepted} messages`);
      t.ok(await eventually(() => !connection.isOpen, 20_000), 'and closed');
      t.equal(connection.send(message), false);
      // The paused client cannot finish a close handshake; drop it so the server's close ends.
      ws.terminate();
    });

    t.test('WebSocket upgrades on a path without an endpoint get 404', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/elsewhere`);
      socket.on('error', () => {});
      const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number; destroy(): void }];
      t.equal(response.statusCode, 404);
      response.destroy();
      socket.terminate();
    });

    t.test('listen: a port already taken is refused with a TransportError; late registration is refused', async (t) => {
      const server = await startServer(kind, methods(freshState()));
      t.teardown(() => server.transport.close());
      const second = makeTransport(kind);
      await t.rejects(second.listen('127.0.0.1', server.port), TransportError);
      await second.close();
      t.throws(() => server.transport.route('GET', '/late', () => ({ status: 200, body: '' })), TransportError);
      t.throws(() => server.transport.jsonRpc('/late', () => ''), TransportError);
      const fresh = makeTransport(kind);
      fresh.route('GET', '/a', () => ({ status: 200, body: '' }));
      t.throws(() => fresh.route('GET', '/a', () => ({ status: 200, body: '' })), TransportError, 'duplicate routes');
      t.throws(() => fresh.route('GET', 'a', () => ({ status: 200, body: '' })), TransportError, 'paths start with /');
      await fresh.close();
    });

    t.test('close: ends keep-alive and WebSocket connections, refuses new ones, drops late answers', async (t) => {
      const state = freshState();
      const server = await startServer(kind, methods(state));
      const idle = await RawClient.connect(server.port);
      idle.write(postBytes(call('eth_chainId')));
      t.equal((await idle.read()).status, 200);
      const waiting = await RawClient.connect(server.port);
      waiting.write(postBytes(call('gated')));
      t.ok(await eventually(() => server.dispatcher.inFlight === 1));
      const ws = await WsClient.open(`ws://127.0.0.1:${server.port}/ws`);
      ws.send(call('subscribe'));
      await ws.next();
      await server.transport.close();
      t.ok(await idle.waitClosed(), 'idle keep-alive connection closed');
      t.ok(await waiting.waitClosed(), 'connection with a pending call closed');
      t.not(await ws.closed(), undefined, 'WebSocket closed');
      t.notOk(state.connections[0]!.isOpen);
      state.gate.open();
      t.ok(await eventually(() => server.dispatcher.inFlight === 0), 'the late answer was dropped without a crash');
      await delay(20);
      const refused = connect({ host: '127.0.0.1', port: server.port });
      const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
      t.equal(error.code, 'ECONNREFUSED', 'no longer listening');
      await server.transport.close();
      t.pass('close() twice is fine');
    });
  });
}
