/** eth_ error paths with geth's codes and messages: invalid params, unknown and pruned blocks, range cap, reverts. */
import t from 'tap';
import { createPublicClient, http, BaseError, CallExecutionError } from 'viem';
import { ALICE, BOB, hex, PANICKER, REVERTER } from './fixtures/eth-backend.js';
import { startEthServer, TEST_MAX_LOG_RANGE, type EthTestServer } from './fixtures/eth-server.js';

let server: EthTestServer;
t.before(async () => {
  server = await startEthServer();
});
t.teardown(async () => server.stop());

async function errorOf(method: string, params: unknown[]): Promise<unknown> {
  const response = await server.call(method, params);
  return response.error;
}

t.test('invalid params: argument count, quantities, tags, addresses, hashes, data', async (t) => {
  const cases: [string, unknown[], string][] = [
    ['eth_getBalance', [], 'missing value for required argument 0'],
    ['eth_getBalance', [ALICE.address, 'latest', 1], 'too many arguments, want at most 2'],
    ['eth_getBalance', [ALICE.address, 'newest'], 'invalid argument 1: hex string without 0x prefix'],
    ['eth_getBalance', [ALICE.address, '0x01'], 'invalid argument 1: hex number with leading zero digits'],
    ['eth_getBalance', [ALICE.address, '0x'], 'invalid argument 1: hex string "0x"'],
    ['eth_getBalance', [ALICE.address, '0xzz'], 'invalid argument 1: invalid hex string'],
    ['eth_getBalance', [ALICE.address, '0x8000000000000000'], 'invalid argument 1: block number larger than int64'],
    ['eth_getBalance', [ALICE.address, '0x10000000000000000'], 'invalid argument 1: hex number > 64 bits'],
    ['eth_getBalance', [ALICE.address.slice(2), 'latest'], 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address'],
    ['eth_getBalance', [`0x${'zz'.repeat(20)}`, 'latest'], 'invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Address'],
    ['eth_getBalance', [7, 'latest'], 'invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Address'],
    [
      'eth_getBalance',
      [ALICE.address, { blockNumber: '0x1', blockHash: `0x${'00'.repeat(32)}` }],
      'invalid argument 1: cannot specify both BlockHash and BlockNumber, choose one or the other',
    ],
    ['eth_getTransactionByHash', ['0x1234'], 'invalid argument 0: hex string has length 4, want 64 for common.Hash'],
    ['eth_getBlockByNumber', ['latest'], 'missing value for required argument 1'],
    ['eth_getBlockByNumber', ['latest', 'yes'], 'invalid argument 1: json: cannot unmarshal non-bool into Go value of type bool'],
    ['eth_sendRawTransaction', ['0x123'], 'invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes'],
    ['eth_getStorageAt', [ALICE.address, `0x${'1'.repeat(66)}`, 'latest'], 'invalid argument 1: hex string too long, want at most 32 bytes'],
    ['eth_getLogs', [{ topics: [null, null, null, null, null] }], 'invalid argument 0: exceed max topics'],
    ['eth_getLogs', [{ blockHash: `0x${'00'.repeat(32)}`, fromBlock: '0x1' }], 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other'],
  ];
  for (const [method, params, message] of cases) {
    t.same(await errorOf(method, params), { code: -32602, message }, `${method} ${JSON.stringify(params)}`);
  }
  t.same(await errorOf('eth_getBalance', [ALICE.address, {}]), { code: -32000, message: 'invalid arguments; neither block nor hash specified' });
  t.same(await errorOf('eth_foo', []), { code: -32601, message: 'the method eth_foo does not exist/is not available' });
});

t.test('unknown blocks: header not found by number, header for hash not found by hash', async (t) => {
  t.same(await errorOf('eth_getBalance', [ALICE.address, '0x64']), { code: -32000, message: 'header not found' });
  t.same(await errorOf('eth_getCode', [ALICE.address, { blockHash: `0x${'ab'.repeat(32)}` }]), { code: -32000, message: 'header for hash not found' });
  t.same(await errorOf('eth_getLogs', [{ blockHash: `0x${'ab'.repeat(32)}` }]), { code: -32000, message: 'unknown block' });
  t.same(await errorOf('eth_feeHistory', ['0x1', '0x64']), { code: -32000, message: 'request beyond head block' });
});

t.test('a height below the retained state names both heights', async (t) => {
  server.backend.earliestState = 3;
  t.teardown(() => {
    server.backend.earliestState = 0;
  });
  const error = (await errorOf('eth_getBalance', [ALICE.address, '0x1'])) as { code: number; message: string };
  t.equal(error.code, -32000);
  t.match(error.message, /state at block 1 is not available: the earliest retained block is 3/);
  const viem = createPublicClient({ transport: http(server.url) });
  await t.rejects(viem.getBalance({ address: ALICE.address, blockTag: 'earliest' }), /earliest retained block is 3/);
  t.equal(await viem.getBalance({ address: ALICE.address, blockNumber: 3n }) > 0n, true, 'the earliest retained height itself works');
});

t.test('eth_getLogs: the range cap names max-log-block-range; reversed and future ranges', async (t) => {
  const error = (await errorOf('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x4' }])) as { code: number; message: string };
  t.equal(error.code, -32005);
  t.match(error.message, `5 blocks requested (0 to 4) but max-log-block-range is ${TEST_MAX_LOG_RANGE}`);
  const atCap = await server.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }]);
  t.equal((atCap.result as unknown[]).length, 1, 'a range of exactly the cap is served');
  t.same(await errorOf('eth_getLogs', [{ fromBlock: '0x4', toBlock: '0x2' }]), { code: -32602, message: 'invalid block range params' });
  t.same(await errorOf('eth_getLogs', [{ fromBlock: '0x4', toBlock: '0x9' }]), { code: -32602, message: 'block range extends beyond current head block' });
  const viem = createPublicClient({ transport: http(server.url) });
  await t.rejects(viem.getLogs({ fromBlock: 0n, toBlock: 5n }), /max-log-block-range is 3/);
});

t.test('eth_call revert: code 3, "execution reverted: <reason>", revert bytes as data', async (t) => {
  const response = await server.call('eth_call', [{ to: hex(REVERTER), data: '0x' }, 'latest']);
  const error = response.error as { code: number; message: string; data: string };
  t.equal(error.code, 3);
  t.equal(error.message, 'execution reverted: insufficient allowance');
  t.match(error.data, /^0x08c379a0/);
  const panic = (await server.call('eth_call', [{ to: hex(PANICKER) }])).error as { code: number; message: string; data: string };
  t.same(panic, { code: 3, message: 'execution reverted: arithmetic underflow or overflow', data: `0x4e487b71${'11'.padStart(64, '0')}` });
  const estimate = (await server.call('eth_estimateGas', [{ to: hex(REVERTER) }])).error as { code: number; message: string };
  t.equal(estimate.code, 3);
  t.equal(estimate.message, 'execution reverted: insufficient allowance');
  const failed = await server.call('eth_call', [{ to: hex(BOB), gas: '0x10' }]);
  t.same(failed.error, { code: -32000, message: 'intrinsic gas too low: gas 16, minimum needed 21000' });
  t.same(await errorOf('eth_call', [{ to: hex(BOB), data: '0x01', input: '0x02' }]), {
    code: -32000,
    message: 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
  });

  const viem = createPublicClient({ transport: http(server.url) });
  const thrown = await viem.call({ to: hex(REVERTER), data: '0x' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(thrown instanceof CallExecutionError, 'viem reports a call execution error');
  t.match((thrown as BaseError).shortMessage + (thrown as BaseError).details, /insufficient allowance/);
});

t.test('eth_getProof says historical proofs are not supported; eth_subscribe over HTTP is refused', async (t) => {
  const proof = (await errorOf('eth_getProof', [ALICE.address, [], 'latest'])) as { code: number; message: string };
  t.equal(proof.code, -32000);
  t.match(proof.message, /^historical proofs are not supported/);
  t.same(await errorOf('eth_subscribe', ['newHeads']), { code: -32601, message: 'notifications not supported' });
  t.same(await errorOf('eth_unsubscribe', ['0x1']), { code: -32601, message: 'notifications not supported' });
});

t.test('fee history percentiles are validated as geth does', async (t) => {
  t.same(await errorOf('eth_feeHistory', ['0x1', 'latest', [101]]), { code: -32000, message: 'invalid reward percentile: 101.000000' });
  t.same(await errorOf('eth_feeHistory', ['0x1', 'latest', [50, 10]]), {
    code: -32000,
    message: 'invalid reward percentile: #0:50.000000 >= #1:10.000000',
  });
  t.same((await server.call('eth_feeHistory', [2, 'latest'])).result, {
    oldestBlock: '0x4',
    baseFeePerGas: ['0x3b9aca00', '0x3b9aca00', '0x3b9aca00'],
    gasUsedRatio: [0, 0],
  }, 'a decimal block count is accepted; no reward without percentiles');
});
