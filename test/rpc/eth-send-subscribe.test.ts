/** eth_sendRawTransaction through viem (signed locally) and eth_subscribe newHeads/logs over WebSocket. */
import t from 'tap';
import { createPublicClient, createWalletClient, http, webSocket, defineChain } from 'viem';
import { ALICE, BOB, CHAIN_ID, hex, TOKEN, TRANSFER_TOPIC } from './fixtures/eth-backend.js';
import { startEthServer, type EthTestServer } from './fixtures/eth-server.js';
import { WsClient } from './fixtures/ws-client.js';

let server: EthTestServer;
t.beforeEach(async () => {
  server = await startEthServer();
});
t.afterEach(async () => server.stop());

const chain = defineChain({
  id: Number(CHAIN_ID),
  name: 'strata-test',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

t.test('a signed type-2 transaction is admitted, readable as pending, and a reused nonce is refused', async (t) => {
  const wallet = createWalletClient({ account: ALICE, chain, transport: http(server.url) });
  const request = { to: hex(BOB), value: 7n, nonce: 2, gas: 21_000n, maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000n, chain } as const;
  const signed = await wallet.signTransaction(request);
  const hash = await wallet.sendRawTransaction({ serializedTransaction: signed });
  t.match(hash, /^0x[0-9a-f]{64}$/);
  const viem = createPublicClient({ chain, transport: http(server.url) });
  const pending = await server.call('eth_getTransactionByHash', [hash]);
  const tx = pending.result as Record<string, unknown>;
  t.equal(tx['blockHash'], null, 'pending: no block');
  t.equal(tx['blockNumber'], null);
  t.equal(tx['transactionIndex'], null);
  t.equal(tx['gasPrice'], '0xb2d05e00', 'pending dynamic-fee tx reports maxFeePerGas as gasPrice');
  t.equal(tx['from'], ALICE.address.toLowerCase());
  t.equal(await viem.getTransactionCount({ address: ALICE.address, blockTag: 'pending' }), 3);

  const again = await server.call('eth_sendRawTransaction', [signed]);
  t.same(again.error, { code: -32000, message: 'already known' });
  const stale = await wallet.signTransaction({ ...request, nonce: 1 });
  const low = await server.call('eth_sendRawTransaction', [stale]);
  t.same(low.error, { code: -32000, message: 'nonce too low: next nonce 3, tx nonce 1' });
  const garbage = await server.call('eth_sendRawTransaction', ['0x02c0']);
  t.equal((garbage.error as { code: number }).code, -32000);
  t.same((await server.call('eth_sendRawTransaction', ['0x'])).error, { code: -32000, message: 'typed transaction too short' });

  server.backend.mine();
  const mined = await viem.getTransaction({ hash });
  t.equal(mined.blockNumber, 6n);
  t.equal(mined.gasPrice, 1_000_000_000n + 1_000_000n, 'mined: base fee + tip');
});

t.test('viem watchBlocks over WebSocket receives newHeads notifications', async (t) => {
  const viem = createPublicClient({ transport: webSocket(server.wsUrl) });
  const heads: bigint[] = [];
  const seen = new Promise<void>((resolve) => {
    const stop = viem.watchBlocks({
      onBlock: (block) => {
        heads.push(block.number);
        if (heads.length === 2) {
          stop();
          resolve();
        }
      },
    });
  });
  while (server.rpc.subscriptions.size === 0) await new Promise((r) => setTimeout(r, 10));
  server.backend.mine();
  server.backend.mine();
  await seen;
  t.same(heads, [6n, 7n]);
  await (await viem.transport.getRpcClient()).close();
});

t.test('raw eth_subscribe: notification shape, logs filter, unsubscribe, closed connections are dropped', async (t) => {
  const ws = await WsClient.open(server.wsUrl);
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  const subscribed = (await ws.next()) as { id: number; result: string };
  t.match(subscribed.result, /^0x(0|[1-9a-f][0-9a-f]{0,31})$/, "geth spells ids without leading zeros");
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', { address: hex(TOKEN), topics: [hex(TRANSFER_TOPIC)] }] }));
  const logsId = ((await ws.next()) as { result: string }).result;
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['logs', { address: hex(BOB) }] }));
  const otherLogsId = ((await ws.next()) as { result: string }).result;
  t.not(otherLogsId, logsId);

  // A block carrying the fixture's Transfer log: replay block 3's transactions into the mempool.
  for (const tx of server.backend.blocks[3]!.block.transactions) server.backend.pending.set(hex(tx.hash), { tx, raw: new Uint8Array() });
  const block = server.backend.mine();
  const head = (await ws.next()) as { jsonrpc: string; method: string; params: { subscription: string; result: Record<string, unknown> } };
  t.equal(head.method, 'eth_subscription');
  t.equal(head.params.subscription, subscribed.result);
  t.equal(head.params.result['number'], '0x6');
  t.equal(head.params.result['hash'], hex(block.hash));
  t.equal(head.params.result['difficulty'], '0x0');
  const log = (await ws.next()) as { params: { subscription: string; result: Record<string, unknown> } };
  t.equal(log.params.subscription, logsId);
  t.equal(log.params.result['address'], hex(TOKEN));
  t.equal(log.params.result['blockNumber'], '0x6');
  await new Promise((r) => setTimeout(r, 50));
  t.equal(ws.queued, 0, 'the BOB-address logs subscription received nothing');

  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'eth_unsubscribe', params: [subscribed.result] }));
  t.same(await ws.next(), { jsonrpc: '2.0', id: 4, result: true });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'eth_unsubscribe', params: [subscribed.result] }));
  t.same(await ws.next(), { jsonrpc: '2.0', id: 5, error: { code: -32000, message: 'subscription not found' } });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'eth_subscribe', params: ['newPendingTransactions'] }));
  t.same(await ws.next(), { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'no "newPendingTransactions" subscription in eth namespace' } });
  server.backend.mine();
  await new Promise((r) => setTimeout(r, 50));
  t.equal(ws.queued, 0, 'no head after unsubscribe, and no log in an empty block');

  ws.close();
  await ws.closed();
  t.equal(server.rpc.subscriptions.size, 2);
  server.backend.mine();
  t.equal(server.rpc.subscriptions.size, 0, 'subscriptions of a closed connection are dropped at the next block');
  t.equal(server.backend.listenerCount, 0, 'the backend listener is detached once nothing listens');
});

t.test('one connection cannot cancel another connection\'s subscription', async (t) => {
  const a = await WsClient.open(server.wsUrl);
  const b = await WsClient.open(server.wsUrl);
  a.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  const id = ((await a.next()) as { result: string }).result;
  b.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_unsubscribe', params: [id] }));
  t.same(await b.next(), { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'subscription not found' } });
  server.backend.mine();
  t.equal(((await a.next()) as { method: string }).method, 'eth_subscription');
  a.close();
  b.close();
  await a.closed();
  await b.closed();
});
