/**
 * The JSON-RPC core without a transport: message classification, batches, notifications,
 * geth's error codes and messages, the limits, serialisation, and the synchronous fast path.
 */
import t from 'tap';
import { memoryLogger } from '../../src/log/logger.js';
import {
  Dispatcher,
  ErrorCode,
  HTTP_CONTEXT,
  RpcError,
  expectParams,
  invalidArgument,
  responseText,
  type MethodTable,
  type RequestContext,
} from '../../src/rpc/jsonrpc/index.js';
import { RawJson } from '../../src/util/raw-json.js';
import { Gate } from './fixtures/helpers.js';

/** A call body. */
function call(method: string, params?: unknown, id: unknown = 1): string {
  return JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
}

/** Runs a body and parses the answer (awaiting it when asynchronous). */
async function answer(dispatcher: Dispatcher, body: string, ctx: RequestContext = HTTP_CONTEXT): Promise<unknown> {
  const text = responseText(await dispatcher.handle(body, ctx));
  return text === '' ? undefined : JSON.parse(text);
}

const BASIC: MethodTable = {
  eth_chainId: () => '0x1',
  echo: (params) => params,
  slow_echo: async (params) => params,
};

t.test('a single call answers with jsonrpc, the same id and the result, in geth member order', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  t.equal(dispatcher.handle(call('eth_chainId'), HTTP_CONTEXT), '{"jsonrpc":"2.0","id":1,"result":"0x1"}');
  t.same(await answer(dispatcher, call('eth_chainId', [], 'abc')), { jsonrpc: '2.0', id: 'abc', result: '0x1' });
  t.same(await answer(dispatcher, call('eth_chainId', [], null)), { jsonrpc: '2.0', id: null, result: '0x1' }, 'a null id is a call, not a notification');
  t.same(await answer(dispatcher, call('eth_chainId', [], 1.5)), { jsonrpc: '2.0', id: 1.5, result: '0x1' });
});

t.test('synchronous handlers are answered synchronously; a Promise appears only for async handlers', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  t.type(dispatcher.handle(call('echo', [1]), HTTP_CONTEXT), 'string');
  t.type(dispatcher.handle(`[${call('echo', [1])},${call('eth_chainId', [], 2)}]`, HTTP_CONTEXT), 'string', 'a batch of sync calls too');
  const pending = dispatcher.handle(call('slow_echo', [2]), HTTP_CONTEXT);
  t.ok(pending instanceof Promise);
  t.same(JSON.parse(responseText(await pending)), { jsonrpc: '2.0', id: 1, result: [2] });
  const mixed = dispatcher.handle(`[${call('echo', [1])},${call('slow_echo', [2], 2)}]`, HTTP_CONTEXT);
  t.ok(mixed instanceof Promise);
  t.same(JSON.parse(responseText(await mixed)), [
    { jsonrpc: '2.0', id: 1, result: [1] },
    { jsonrpc: '2.0', id: 2, result: [2] },
  ]);
});

t.test('a result that came as bytes goes out as bytes: the same JSON, one buffer; a batch is one text', async (t) => {
  const parts = () => new RawJson({ head: '{"name":"été","logs":', body: new TextEncoder().encode('[1,2,3]'), tail: '}' });
  const seen: boolean[] = [];
  const dispatcher = new Dispatcher(
    { trace: () => parts(), later: async () => parts() },
    { maxResponseBytes: 200, observe: (_method, _seconds, ok) => seen.push(ok) },
  );
  const expected = '{"jsonrpc":"2.0","id":7,"result":{"name":"été","logs":[1,2,3]}}';
  const bytes = dispatcher.handle(call('trace', [], 7), HTTP_CONTEXT);
  t.ok(bytes instanceof Uint8Array, 'a synchronous answer is bytes');
  t.equal(Buffer.from(bytes as Uint8Array).toString('utf8'), expected, 'UTF-8 of the head and tail, the body copied as it is');
  const later = await dispatcher.handle(call('later', [], 7), HTTP_CONTEXT);
  t.ok(later instanceof Uint8Array, 'an asynchronous answer too');
  t.equal(responseText(later), expected);
  t.same(seen, [true, true], 'both counted as successes');
  t.equal(await dispatcher.handle(`[${call('trace', [], 1)},${call('later', [], 2)}]`, HTTP_CONTEXT), `[${expected.replace(':7', ':1')},${expected.replace(':7', ':2')}]`, 'a batch is one text');
  const small = new Dispatcher({ trace: () => parts() }, { maxResponseBytes: 40 });
  const refused = JSON.parse(responseText(small.handle(call('trace', [], 3), HTTP_CONTEXT) as string)) as { id: number; error: { code: number; message: string } };
  t.equal(refused.id, 3);
  t.equal(refused.error.code, -32005);
  t.match(refused.error.message, /response too large: the answer of trace is \d+ bytes, over the 40-byte limit/, 'the size limit holds for bytes');
});

t.test('params: absent or null means no arguments, an array is positional, anything else is -32602 non-array args', async (t) => {
  const seen: unknown[][] = [];
  const dispatcher = new Dispatcher({ record: (params) => (seen.push(params), true) });
  await answer(dispatcher, call('record'));
  await answer(dispatcher, call('record', null));
  await answer(dispatcher, call('record', [1, 'a']));
  t.same(seen, [[], [], [1, 'a']]);
  t.same(await answer(dispatcher, call('record', { a: 1 })), {
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32602, message: 'non-array args' },
  });
  t.equal(seen.length, 3, 'the handler did not run for bad params');
});

t.test('handlers receive the request context', async (t) => {
  let got: RequestContext | undefined;
  const dispatcher = new Dispatcher({ ctx: (_params, ctx) => ((got = ctx), null) });
  await answer(dispatcher, call('ctx'));
  t.equal(got, HTTP_CONTEXT);
  t.equal(got?.transport, 'http');
  t.equal(got?.connection, undefined);
});

t.test('notifications run but get no response; an all-notification body answers with nothing', async (t) => {
  let runs = 0;
  const { logger, records } = memoryLogger();
  const dispatcher = new Dispatcher(
    {
      count: () => ++runs,
      broken: () => {
        throw new TypeError('bug');
      },
    },
    { logger },
  );
  t.equal(dispatcher.handle('{"jsonrpc":"2.0","method":"count"}', HTTP_CONTEXT), '');
  t.equal(runs, 1);
  t.equal(dispatcher.handle('{"jsonrpc":"2.0","method":"no_such_method"}', HTTP_CONTEXT), '', 'unknown notifications are silent');
  t.equal(dispatcher.handle('{"jsonrpc":"2.0","method":"broken"}', HTTP_CONTEXT), '', 'failing notifications are silent');
  t.ok(records.some((r) => r.level === 'error' && r.msg.includes('broken')), 'but a crash is logged');
  t.equal(dispatcher.handle('[{"jsonrpc":"2.0","method":"count"},{"jsonrpc":"2.0","method":"count"}]', HTTP_CONTEXT), '');
  t.equal(runs, 3);
});

t.test('-32700 parse error for a body that is not JSON', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };
  for (const body of ['{', '', 'nonsense', '[{"jsonrpc":"2.0","id":1,"method":"echo"},', '{"id":1,}']) {
    t.same(await answer(dispatcher, body), parseError, JSON.stringify(body));
  }
});

t.test('-32600 invalid request, with the id when it is usable and null otherwise', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  const invalid = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } });
  t.same(await answer(dispatcher, '{"jsonrpc":"1.0","id":7,"method":"echo"}'), invalid(7), 'wrong version');
  t.same(await answer(dispatcher, '{"id":7,"method":"echo"}'), invalid(7), 'no version');
  t.same(await answer(dispatcher, '{"jsonrpc":"2.0","id":"x"}'), invalid('x'), 'no method');
  t.same(await answer(dispatcher, '{"jsonrpc":"2.0","id":8,"method":""}'), invalid(8), 'empty method');
  t.same(await answer(dispatcher, '{"jsonrpc":"2.0","id":9,"method":5}'), invalid(9), 'method not a string');
  t.same(await answer(dispatcher, '{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}'), invalid(null), 'object id');
  t.same(await answer(dispatcher, '{"jsonrpc":"2.0","id":[1],"method":"echo"}'), invalid(null), 'array id');
  t.same(await answer(dispatcher, '{"jsonrpc":"1.0","method":"echo"}'), invalid(null), 'no id and wrong version is not a notification');
  for (const body of ['null', '5', '"text"', 'true']) t.same(await answer(dispatcher, body), invalid(null), body);
});

t.test("-32601 with geth's text; prototype names are not methods", async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  for (const method of ['eth_nothing', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    t.same(await answer(dispatcher, call(method, [], 3)), {
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: `the method ${method} does not exist/is not available` },
    });
  }
  t.equal(dispatcher.has('eth_chainId'), true);
  t.equal(dispatcher.has('constructor'), false);
});

t.test('batches: answers in request order, notifications omitted, invalid members answered in place', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  const body = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'echo', params: ['a'] },
    { jsonrpc: '2.0', method: 'echo', params: ['note'] },
    { jsonrpc: '2.0', id: 2, method: 'missing' },
    null,
    [1],
    { jsonrpc: '2.0', id: 3, method: 'slow_echo', params: ['b'] },
    { jsonrpc: '2.0', id: 4, method: 'echo', params: 'bad' },
  ]);
  t.same(await answer(dispatcher, body), [
    { jsonrpc: '2.0', id: 1, result: ['a'] },
    { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'the method missing does not exist/is not available' } },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    { jsonrpc: '2.0', id: 3, result: ['b'] },
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'non-array args' } },
  ]);
});

t.test('an empty batch is one invalid-request error object, not an array (as geth)', async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  t.equal(dispatcher.handle('[]', HTTP_CONTEXT), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
  t.equal(dispatcher.handle(' [ ] ', HTTP_CONTEXT), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
});

t.test('batch too large: one error in an array carrying the first call id; nothing runs', async (t) => {
  let runs = 0;
  const dispatcher = new Dispatcher({ count: () => ++runs }, { maxBatchSize: 3 });
  const member = (id?: number) => (id === undefined ? { jsonrpc: '2.0', method: 'count' } : { jsonrpc: '2.0', id, method: 'count' });
  t.same(await answer(dispatcher, JSON.stringify([member(), member(9), member(10), member(11)])), [
    { jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'batch too large' } },
  ]);
  t.same(await answer(dispatcher, JSON.stringify([member(), member(), member(), member()])), [
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } },
  ], 'no call in the batch: null id');
  t.equal(runs, 0);
  const atLimit = (await answer(dispatcher, JSON.stringify([member(1), member(2), member(3)]))) as unknown[];
  t.equal(atLimit.length, 3, 'a batch at the limit runs');
});

t.test("the default batch limit is geth's 1000", async (t) => {
  const dispatcher = new Dispatcher(BASIC);
  const batch = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })));
  t.equal(((await answer(dispatcher, batch(1000))) as unknown[]).length, 1000);
  t.same(await answer(dispatcher, batch(1001)), [{ jsonrpc: '2.0', id: 0, error: { code: -32600, message: 'batch too large' } }]);
});

t.test('errors thrown by handlers map to geth codes', async (t) => {
  const { logger, records } = memoryLogger();
  const dispatcher = new Dispatcher(
    {
      custom: () => {
        throw new RpcError(-32010, 'custom failure', { detail: 1 });
      },
      revert_reason: () => {
        throw RpcError.executionReverted('0x08c379a0', 'boom');
      },
      revert_bare: async () => {
        throw RpcError.executionReverted('0x');
      },
      returned_error: () => {
        throw new Error('header not found');
      },
      bug: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      },
      async_bug: async () => {
        throw new RangeError('bad length');
      },
      throws_string: () => {
        throw 'not an error';
      },
      params_check: (params) => {
        expectParams(params, 1, 2);
        return 'ok';
      },
      bad_argument: () => {
        throw invalidArgument(0, 'hex string without 0x prefix');
      },
      server: () => {
        throw RpcError.internal('database unavailable');
      },
    },
    { logger },
  );
  const error = async (method: string, params: unknown[] = []) => ((await answer(dispatcher, call(method, params))) as { error: unknown }).error;
  t.same(await error('custom'), { code: -32010, message: 'custom failure', data: { detail: 1 } });
  t.same(await error('revert_reason'), { code: 3, message: 'execution reverted: boom', data: '0x08c379a0' });
  t.same(await error('revert_bare'), { code: 3, message: 'execution reverted', data: '0x' });
  t.same(await error('returned_error'), { code: -32000, message: 'header not found' });
  t.same(await error('bug'), { code: -32603, message: 'method handler crashed' });
  t.same(await error('async_bug'), { code: -32603, message: 'method handler crashed' });
  t.same(await error('throws_string'), { code: -32603, message: 'method handler crashed' });
  t.same(await error('params_check'), { code: -32602, message: 'missing value for required argument 0' });
  t.same(await error('params_check', [null]), { code: -32602, message: 'missing value for required argument 0' });
  t.same(await error('params_check', [1, 2, 3]), { code: -32602, message: 'too many arguments, want at most 2' });
  t.equal(((await answer(dispatcher, call('params_check', [1, 2]))) as { result: string }).result, 'ok');
  t.same(await error('bad_argument'), { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' });
  t.same(await error('server'), { code: -32603, message: 'database unavailable' });
  const crashes = records.filter((r) => r.level === 'error').map((r) => r.labels['method']);
  t.same(crashes.sort(), ['async_bug', 'bug', 'throws_string'], 'crashes are logged with the method; returned errors are not');
  t.match(String(records.find((r) => r.labels['method'] === 'bug')?.labels['error']), /TypeError/, 'with the stack');
});

t.test('a mapError option answers typed errors from below before the default rule', async (t) => {
  class BusyError extends Error {}
  const dispatcher = new Dispatcher(
    {
      busy: async () => {
        throw new BusyError('all slots taken');
      },
      plain: async () => {
        throw new Error('header not found');
      },
    },
    { mapError: (thrown) => (thrown instanceof BusyError ? RpcError.limitExceeded(thrown.message) : undefined) },
  );
  const error = async (method: string) => ((await answer(dispatcher, call(method))) as { error: unknown }).error;
  t.same(await error('busy'), { code: -32005, message: 'all slots taken' });
  t.same(await error('plain'), { code: -32000, message: 'header not found' }, 'unmapped errors keep the default');
});

t.test('RpcError: typed, with codes and the wire object', async (t) => {
  const error = RpcError.methodNotFound('x_y');
  t.ok(error instanceof Error);
  t.equal(error.code, ErrorCode.MethodNotFound);
  t.same(error.toObject(), { code: -32601, message: 'the method x_y does not exist/is not available' });
  t.same(RpcError.executionReverted('0xdead', 'r').toObject(), { code: 3, message: 'execution reverted: r', data: '0xdead' });
  t.same(RpcError.parseError().toObject(), { code: -32700, message: 'parse error' });
  t.same(RpcError.invalidRequest().toObject(), { code: -32600, message: 'invalid request' });
  t.same(RpcError.server('x').toObject(), { code: -32000, message: 'x' });
  t.same(RpcError.limitExceeded('y').toObject(), { code: -32005, message: 'y' });
});

t.test('results: undefined is null; a bigint is a -32603 error that says to encode hex', async (t) => {
  const dispatcher = new Dispatcher({
    nothing: () => undefined,
    big: () => ({ balance: 10n ** 18n }),
    nested: () => ({ a: [1, { b: 'c' }], d: null }),
  });
  t.same(await answer(dispatcher, call('nothing')), { jsonrpc: '2.0', id: 1, result: null });
  t.same(await answer(dispatcher, call('nested')), { jsonrpc: '2.0', id: 1, result: { a: [1, { b: 'c' }], d: null } });
  const big = (await answer(dispatcher, call('big'))) as { error: { code: number; message: string } };
  t.equal(big.error.code, -32603);
  t.match(big.error.message, /the result of big cannot be serialised as JSON/);
  t.match(big.error.message, /encode bigints as 0x-prefixed hex strings/);
});

t.test('in-flight limit: calls past it get -32005 at once, not a hang; the count drains', async (t) => {
  const gate = new Gate();
  const dispatcher = new Dispatcher({ wait: async () => (await gate.wait(), 'done'), quick: () => 'quick' }, { maxInFlight: 2 });
  const first = dispatcher.handle(call('wait', [], 1), HTTP_CONTEXT);
  const second = dispatcher.handle(call('wait', [], 2), HTTP_CONTEXT);
  t.equal(dispatcher.inFlight, 2);
  const rejected = dispatcher.handle(call('wait', [], 3), HTTP_CONTEXT);
  t.type(rejected, 'string', 'the rejection is immediate');
  const body = JSON.parse(rejected as string) as { id: number; error: { code: number; message: string } };
  t.equal(body.id, 3);
  t.equal(body.error.code, -32005);
  t.match(body.error.message, /server busy: 2 requests already in flight; retry later/);
  const quick = JSON.parse(dispatcher.handle(call('quick', [], 4), HTTP_CONTEXT) as string) as { error?: unknown };
  t.ok(quick.error, 'while full, even synchronous calls are refused');
  gate.open();
  t.same(JSON.parse(responseText(await first)), { jsonrpc: '2.0', id: 1, result: 'done' });
  t.same(JSON.parse(responseText(await second)), { jsonrpc: '2.0', id: 2, result: 'done' });
  t.equal(dispatcher.inFlight, 0, 'finished calls leave the count');
  t.same(await answer(dispatcher, call('wait', [], 5)), { jsonrpc: '2.0', id: 5, result: 'done' });
});

t.test('rejected async calls also leave the in-flight count', async (t) => {
  const dispatcher = new Dispatcher({ fail: async () => Promise.reject(new Error('nope')) }, { maxInFlight: 1 });
  for (let i = 0; i < 3; i++) {
    t.same(await answer(dispatcher, call('fail')), { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'nope' } });
  }
  t.equal(dispatcher.inFlight, 0);
});

t.test('limits must be positive integers', async (t) => {
  t.throws(() => new Dispatcher(BASIC, { maxBatchSize: 0 }), RangeError);
  t.throws(() => new Dispatcher(BASIC, { maxInFlight: 1.5 }), RangeError);
});
