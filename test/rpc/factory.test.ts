/**
 * Transport selection: uWebSockets.js when it loads, node:http + ws when it does not or when
 * STRATA_RPC_TRANSPORT=node, each choice logged with its reason; the fallback really serves.
 */
import t from 'tap';
import { memoryLogger } from '../../src/log/logger.js';
import { Dispatcher, serveJsonRpc } from '../../src/rpc/jsonrpc/index.js';
import {
  createHttpTransport,
  NodeHttpTransport,
  TRANSPORT_ENV,
  TransportError,
  UwsTransport,
  type UwsModule,
} from '../../src/rpc/transport/index.js';

const missingBinary = (): UwsModule => {
  throw new Error('This version of uWS.js supports only Node.js versions 16, 18, 20 …\n\nError: Cannot find module');
};

/** Runs `body` with STRATA_RPC_TRANSPORT set to `value` (or unset), restoring it after. */
function withEnv<T>(value: string | undefined, body: () => T): T {
  const saved = process.env[TRANSPORT_ENV];
  if (value === undefined) delete process.env[TRANSPORT_ENV];
  else process.env[TRANSPORT_ENV] = value;
  try {
    return body();
  } finally {
    if (saved === undefined) delete process.env[TRANSPORT_ENV];
    else process.env[TRANSPORT_ENV] = saved;
  }
}

t.test('uWebSockets.js is chosen when it loads, and logged', async (t) => {
  const { logger, records } = memoryLogger();
  const transport = withEnv(undefined, () => createHttpTransport({ logger }));
  t.teardown(() => transport.close());
  t.equal(transport.kind, 'uws');
  t.ok(transport instanceof UwsTransport);
  t.match(records.map((r) => r.msg), [/uWebSockets\.js/]);
});

t.test('falls back to node:http + ws when uWS cannot load, logging why', async (t) => {
  const { logger, records } = memoryLogger();
  const transport = withEnv(undefined, () => createHttpTransport({ logger, loadUws: missingBinary }));
  t.equal(transport.kind, 'node');
  t.ok(transport instanceof NodeHttpTransport);
  const warning = records.find((r) => r.level === 'warn');
  t.match(warning?.msg, /falling back to node:http/);
  t.match(String(warning?.labels['reason']), /supports only Node\.js versions/);
  // The fallback serves for real.
  serveJsonRpc(transport, new Dispatcher({ eth_chainId: () => '0x1' }, { logger }), { logger });
  const port = await transport.listen('127.0.0.1', 0);
  t.teardown(() => transport.close());
  const reply = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });
  t.equal(await reply.text(), '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
});

t.test('STRATA_RPC_TRANSPORT=node forces the fallback without loading uWS', async (t) => {
  const { logger, records } = memoryLogger();
  let loads = 0;
  const transport = withEnv('node', () =>
    createHttpTransport({
      logger,
      loadUws: () => {
        loads++;
        return missingBinary();
      },
    }),
  );
  t.teardown(() => transport.close());
  t.equal(transport.kind, 'node');
  t.equal(loads, 0);
  t.equal(records[0]?.labels['reason'], `${TRANSPORT_ENV}=node`);
});

t.test('STRATA_RPC_TRANSPORT=uws makes a missing uWS an error that says how to fall back', async (t) => {
  t.throws(() => withEnv('uws', () => createHttpTransport({ logger: memoryLogger().logger, loadUws: missingBinary })), {
    name: 'TransportError',
    message: /STRATA_RPC_TRANSPORT=uws but uWebSockets\.js does not load here .*unset STRATA_RPC_TRANSPORT/,
  });
});

t.test('an unknown STRATA_RPC_TRANSPORT value is refused', async (t) => {
  t.throws(() => withEnv('fast', () => createHttpTransport({ logger: memoryLogger().logger })), TransportError);
});

t.test('prefer overrides the environment', async (t) => {
  const transport = withEnv('node', () => createHttpTransport({ prefer: 'uws', logger: memoryLogger().logger }));
  t.teardown(() => transport.close());
  t.equal(transport.kind, 'uws');
});

t.test('limits must be positive integers', async (t) => {
  t.throws(() => createHttpTransport({ prefer: 'node', maxBodyBytes: 0, logger: memoryLogger().logger }), TransportError);
  t.throws(() => createHttpTransport({ prefer: 'node', maxWsBufferedBytes: -1, logger: memoryLogger().logger }), TransportError);
});
