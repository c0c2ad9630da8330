/**
 * Requests built to make the node do unbounded work or answer with something that is not
 * JSON: too many fee-history percentiles, answers larger than the response limit, and ids a
 * JavaScript number cannot print back as sent. Each is answered with a bounded error or the
 * exact id, never a crash.
 */
import t from 'tap';
import { Dispatcher } from '../../src/rpc/jsonrpc/index.js';
import { HTTP_CONTEXT } from '../../src/rpc/jsonrpc/context.js';
import { rawIdTexts } from '../../src/rpc/jsonrpc/raw-ids.js';
import { startEthServer, type EthTestServer } from './fixtures/eth-server.js';

let server: EthTestServer;
t.before(async () => {
  server = await startEthServer();
});
t.teardown(async () => server.stop());

t.test('eth_feeHistory refuses more than 100 reward percentiles before doing any work', async (t) => {
  const many = Array.from({ length: 400_000 }, (_, i) => (i * 100) / 400_000);
  const { text } = await server.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_feeHistory', params: ['0x400', 'latest', many] }));
  t.same(JSON.parse(text), { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'too many reward percentiles: 400000, at most 100 per call' } });
  t.ok(text.length < 200, 'the answer stays small');
  const hundred = Array.from({ length: 100 }, (_, i) => i);
  const ok = await server.call('eth_feeHistory', ['0x400', 'latest', hundred]);
  t.equal((ok['result'] as { reward: unknown[] }).reward.length, 6, 'one reward row per block (0..5), even when more blocks were asked for');
  t.equal((ok['result'] as { oldestBlock: string }).oldestBlock, '0x0');
});

t.test('ids are echoed exactly as sent, also numbers JavaScript would print differently', async (t) => {
  for (const id of ['1e400', '1.50', '-0.0', '12345678901234567890', '1E2']) {
    const { text } = await server.post(`{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[]}`);
    t.equal(text, `{"jsonrpc":"2.0","id":${id},"result":"0xae3f3"}`, `id ${id}`);
  }
  const { text } = await server.post(`[{"jsonrpc":"2.0","id":1e999,"method":"eth_chainId"}, 7, {"jsonrpc":"2.0","method":"nope","id":2.50}]`);
  t.equal(
    text,
    '[{"jsonrpc":"2.0","id":1e999,"result":"0xae3f3"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},' +
      '{"jsonrpc":"2.0","id":2.50,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]',
  );
  t.same(rawIdTexts('[{"params":[{"id":9}],"id":"a\\\\"}, {"x":"\\"id\\":7"}]'), ['"a\\\\"', undefined], 'ids inside params and strings are not ids');
});

t.test('an answer larger than max-response-bytes becomes a -32005 error; a batch past it gets errors for the rest', async (t) => {
  const dispatcher = new Dispatcher({ big: (params) => 'x'.repeat(Number(params[0])), small: () => 1 }, { maxResponseBytes: 1000 });
  const fits = dispatcher.handle('{"jsonrpc":"2.0","id":1,"method":"big","params":[900]}', HTTP_CONTEXT) as string;
  t.equal(JSON.parse(fits).result.length, 900);
  const tooBig = JSON.parse(dispatcher.handle('{"jsonrpc":"2.0","id":"q","method":"big","params":[5000]}', HTTP_CONTEXT) as string);
  t.equal(tooBig.id, 'q');
  t.equal(tooBig.error.code, -32005);
  t.match(tooBig.error.message, /^response too large: the answer of big is \d+ bytes, over the 1000-byte limit \(max-response-bytes\)/);
  const batch = JSON.parse(
    dispatcher.handle(
      '[{"jsonrpc":"2.0","id":1,"method":"big","params":[600]},{"jsonrpc":"2.0","id":"two,\\"","method":"big","params":[600]},{"jsonrpc":"2.0","id":3,"method":"small"}]',
      HTTP_CONTEXT,
    ) as string,
  ) as Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }>;
  t.equal(batch[0]!.result, 'x'.repeat(600));
  t.same(batch.slice(1).map((r) => [r.id, r.error?.code]), [['two,"', -32005], [3, -32005]], 'the calls past the limit keep their ids');
  t.match(batch[1]!.error!.message, /batch response exceeded limit/);
});
