/**
 * Polling filters over HTTP against the fixture backend: what each kind collects between polls,
 * geth's validation and errors, the filter cap, expiry of unpolled filters, and the unread bound.
 */
import t from 'tap';
import { createWalletClient, defineChain, http } from 'viem';
import { memoryLogger } from '../../src/log/logger.js';
import { FilterRegistry } from '../../src/rpc/eth/index.js';
import { ALICE, CHAIN_ID, FixtureEthBackend, hex, TOKEN, TRANSFER_TOPIC } from './fixtures/eth-backend.js';
import { startEthServer, type EthTestServer } from './fixtures/eth-server.js';

const chain = defineChain({
  id: Number(CHAIN_ID),
  name: 'strata-test',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

const ID = /^0x(0|[1-9a-f][0-9a-f]{0,31})$/;

async function result(server: EthTestServer, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await server.call(method, params);
  if (response['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(response['error'])}`);
  return response['result'];
}

/** Sends a token transfer from Alice with `nonce` (the fixture logs a Transfer for any call to TOKEN). */
async function sendTokenTx(server: EthTestServer, nonce: number): Promise<string> {
  const wallet = createWalletClient({ account: ALICE, chain, transport: http(server.url) });
  const signed = await wallet.signTransaction({
    to: hex(TOKEN),
    data: '0xa9059cbb',
    nonce,
    gas: 60_000n,
    maxFeePerGas: 3_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    chain,
  });
  return wallet.sendRawTransaction({ serializedTransaction: signed });
}

t.test('block, pending-transaction and log filters collect what happened since the last poll', async (t) => {
  const server = await startEthServer();
  t.teardown(() => server.stop());
  const blocks = (await result(server, 'eth_newBlockFilter')) as string;
  const pending = (await result(server, 'eth_newPendingTransactionFilter')) as string;
  const pendingFull = (await result(server, 'eth_newPendingTransactionFilter', [true])) as string;
  const logs = (await result(server, 'eth_newFilter', [{ address: hex(TOKEN), topics: [hex(TRANSFER_TOPIC)] }])) as string;
  const other = (await result(server, 'eth_newFilter', [{ address: `0x${'99'.repeat(20)}` }])) as string;
  for (const id of [blocks, pending, pendingFull, logs, other]) t.match(id, ID, 'geth-style id');
  t.equal(new Set([blocks, pending, pendingFull, logs, other]).size, 5, 'ids are distinct');

  t.same(await result(server, 'eth_getFilterChanges', [blocks]), [], 'nothing yet');
  t.same(await result(server, 'eth_getFilterChanges', [logs]), [], 'logs installed now see no history');

  const hash = await sendTokenTx(server, 2);
  t.same(await result(server, 'eth_getFilterChanges', [pending]), [hash], 'the admitted tx hash');
  t.same(await result(server, 'eth_getFilterChanges', [pending]), [], 'a second poll has nothing new');
  const full = (await result(server, 'eth_getFilterChanges', [pendingFull])) as Record<string, unknown>[];
  t.equal(full.length, 1);
  t.match(full[0], { hash, blockHash: null, from: ALICE.address.toLowerCase() }, 'fullTx: a pending transaction object');

  const six = server.backend.mine();
  const seven = server.backend.mine();
  t.same(await result(server, 'eth_getFilterChanges', [blocks]), [hex(six.hash), hex(seven.hash)], 'both block hashes, in order');
  const changed = (await result(server, 'eth_getFilterChanges', [logs])) as Record<string, unknown>[];
  t.equal(changed.length, 1, 'the transfer log');
  t.match(changed[0], { address: hex(TOKEN), transactionHash: hash, blockNumber: '0x6', removed: false });
  t.same(await result(server, 'eth_getFilterChanges', [other]), [], 'a filter on another address sees nothing');
  t.same(await result(server, 'eth_getFilterChanges', [logs]), []);

  // eth_getFilterLogs runs the whole query again (here: latest..latest at install-time defaults).
  const ranged = (await result(server, 'eth_newFilter', [{ fromBlock: '0x6', toBlock: '0x6', address: hex(TOKEN) }])) as string;
  const all = (await result(server, 'eth_getFilterLogs', [ranged])) as Record<string, unknown>[];
  t.equal(all.length, 1, 'getFilterLogs returns logs already in the chain');
  t.equal(all[0]!['transactionHash'], hash);
  await sendTokenTx(server, 3);
  server.backend.mine();
  t.same(await result(server, 'eth_getFilterChanges', [ranged]), [], 'a log past the filter\'s toBlock is not collected');

  t.equal(await result(server, 'eth_uninstallFilter', [blocks]), true);
  t.equal(await result(server, 'eth_uninstallFilter', [blocks]), false, 'a second uninstall finds nothing');
  t.same((await server.call('eth_getFilterChanges', [blocks]))['error'], { code: -32000, message: 'filter not found' });
  t.same((await server.call('eth_getFilterLogs', [pending]))['error'], { code: -32000, message: 'filter not found' }, 'getFilterLogs needs a log filter');
});

t.test('validation and errors as geth gives them', async (t) => {
  const server = await startEthServer();
  t.teardown(() => server.stop());
  const cases: [string, unknown[], number, string][] = [
    ['eth_newFilter', [], -32602, 'missing value for required argument 0'],
    ['eth_newFilter', [{ fromBlock: 'pending' }], -32000, 'pending logs are not supported'],
    ['eth_newFilter', [{ toBlock: 'pending' }], -32000, 'pending logs are not supported'],
    ['eth_newFilter', [{ fromBlock: '0x5', toBlock: '0x2' }], -32000, 'invalid from and to block combination'],
    ['eth_newFilter', [{ fromBlock: 'latest', toBlock: '0x2' }], -32000, 'invalid from and to block combination'],
    ['eth_newFilter', [{ fromBlock: 'earliest' }], -32000, 'invalid from and to block combination'],
    ['eth_newFilter', [{ topics: [null, null, null, null, null] }], -32602, 'invalid argument 0: exceed max topics'],
    ['eth_newFilter', [{ address: Array.from({ length: 1001 }, () => hex(TOKEN)) }], -32000, 'exceed max addresses'],
    ['eth_newFilter', [{ address: '0x12' }], -32602, 'invalid argument 0: hex string has length 2, want 40 for common.Address'],
    ['eth_newFilter', [{ blockHash: `0x${'00'.repeat(32)}`, fromBlock: '0x1' }], -32602, 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other'],
    ['eth_newBlockFilter', [1], -32602, 'too many arguments, want at most 0'],
    ['eth_newPendingTransactionFilter', ['yes'], -32602, 'invalid argument 0: json: cannot unmarshal non-bool into Go value of type bool'],
    ['eth_getFilterChanges', [], -32602, 'missing value for required argument 0'],
    ['eth_getFilterChanges', [7], -32602, 'invalid argument 0: json: cannot unmarshal non-string into Go value of type rpc.ID'],
    ['eth_getFilterChanges', ['0x1234'], -32000, 'filter not found'],
    ['eth_getFilterLogs', ['0x1234'], -32000, 'filter not found'],
    ['eth_uninstallFilter', [{}], -32602, 'invalid argument 0: json: cannot unmarshal non-string into Go value of type rpc.ID'],
  ];
  for (const [method, params, code, message] of cases) {
    t.same((await server.call(method, params))['error'], { code, message }, `${method} ${JSON.stringify(params).slice(0, 60)}`);
  }
  t.equal(await result(server, 'eth_uninstallFilter', ['0x1234']), false, 'uninstalling an unknown id is false, not an error');
  t.equal(server.rpc.filters.size, 0, 'no refused request left a filter behind');

  // A filter over a range wider than max-log-block-range installs, but eth_getFilterLogs is bounded like eth_getLogs.
  const wide = (await result(server, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: '0x5' }])) as string;
  const refused = (await server.call('eth_getFilterLogs', [wide]))['error'] as { code: number; message: string };
  t.equal(refused.code, -32005);
  t.match(refused.message, /block range too large: 6 blocks requested \(0 to 5\) but max-log-block-range is 3/);
  const unknownHash = (await result(server, 'eth_newFilter', [{ blockHash: `0x${'ab'.repeat(32)}` }])) as string;
  t.same((await server.call('eth_getFilterLogs', [unknownHash]))['error'], { code: -32000, message: 'unknown block' });
});

t.test('the filter table is capped and a full table is a clear -32005', async (t) => {
  const server = await startEthServer({ maxFilters: 3 });
  t.teardown(() => server.stop());
  const ids = [
    await result(server, 'eth_newBlockFilter'),
    await result(server, 'eth_newPendingTransactionFilter'),
    await result(server, 'eth_newFilter', [{}]),
  ];
  const full = (await server.call('eth_newBlockFilter'))['error'] as { code: number; message: string };
  t.equal(full.code, -32005);
  t.match(full.message, /^too many filters: max-filters is 3; uninstall filters/);
  t.equal(await result(server, 'eth_uninstallFilter', [ids[0]]), true);
  t.match(await result(server, 'eth_newBlockFilter'), ID, 'room again after an uninstall');
});

t.test('a filter nobody polls expires; polling keeps it alive', async (t) => {
  const server = await startEthServer({ filterTimeoutMs: 400 });
  t.teardown(() => server.stop());
  const polled = (await result(server, 'eth_newBlockFilter')) as string;
  const idle = (await result(server, 'eth_newBlockFilter')) as string;
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 200));
    t.same(await result(server, 'eth_getFilterChanges', [polled]), []);
  }
  t.same((await server.call('eth_getFilterChanges', [idle]))['error'], { code: -32000, message: 'filter not found' }, 'idle for 800 ms > 400 ms');
  t.equal(server.rpc.filters.size, 1, 'only the polled filter is left');
  t.equal(server.backend.listenerCount, 1, 'still listening for the polled filter');
  await new Promise((r) => setTimeout(r, 700));
  t.equal(server.rpc.filters.size, 0, 'the sweep removes a filter nobody asks about');
  t.equal(server.backend.listenerCount, 0, 'and stops listening to new blocks');
});

t.test('a filter whose unread entries outgrow the bound is removed', async (t) => {
  const backend = new FixtureEthBackend();
  const filters = new FilterRegistry(backend, { maxFilters: 10, timeoutMs: 60_000, maxUnread: 2, logger: memoryLogger().logger });
  t.teardown(() => filters.close());
  const id = filters.install('blocks');
  backend.mine();
  backend.mine();
  t.equal(filters.changes(id)?.kind, 'hashes', 'two unread blocks fit');
  backend.mine();
  backend.mine();
  backend.mine();
  t.equal(filters.changes(id), undefined, 'the third unread block removed it');
  t.equal(backend.listenerCount, 0);
});
