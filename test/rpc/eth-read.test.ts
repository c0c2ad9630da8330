/** eth_ read methods through viem and raw HTTP: exact JSON shapes of blocks, transactions, receipts, logs. */
import t from 'tap';
import { createPublicClient, http } from 'viem';
import { ALICE, aliceBalanceAt, BASE_FEE, BOB, CHAIN_ID, hex, TOKEN, TRANSFER_TOPIC } from './fixtures/eth-backend.js';
import { startEthServer, type EthTestServer } from './fixtures/eth-server.js';
import { EMPTY_UNCLES_HASH } from '../../src/rpc/eth/index.js';

let server: EthTestServer;
t.before(async () => {
  server = await startEthServer();
});
t.teardown(async () => server.stop());

function client() {
  return createPublicClient({ transport: http(server.url) });
}

t.test('chain id, block number, net_version, net_listening, web3_clientVersion', async (t) => {
  const viem = client();
  t.equal(await viem.getChainId(), Number(CHAIN_ID));
  t.equal(await viem.getBlockNumber(), 5n);
  t.same(await server.call('eth_chainId'), { jsonrpc: '2.0', id: 1, result: '0xae3f3' });
  t.same((await server.call('net_version')).result, '713715');
  t.equal((await server.call('net_listening')).result, true);
  t.equal((await server.call('web3_clientVersion')).result, `strata/v0.1.0/linux-${process.arch}/node${process.versions.node}`);
  t.same((await server.call('eth_syncing')).result, false);
  server.backend.syncStatus = { startingBlock: 0, currentBlock: 5, highestBlock: 16 };
  t.same((await server.call('eth_syncing')).result, { startingBlock: '0x0', currentBlock: '0x5', highestBlock: '0x10' });
  server.backend.syncStatus = false;
});

t.test('state reads at latest, at a number, by EIP-1898 hash object, and pending nonce', async (t) => {
  const viem = client();
  t.equal(await viem.getBalance({ address: ALICE.address }), aliceBalanceAt(5));
  t.equal(await viem.getBalance({ address: ALICE.address, blockNumber: 2n }), aliceBalanceAt(2));
  const block2 = server.backend.blocks[2]!.block;
  const byHash = await server.call('eth_getBalance', [ALICE.address, { blockHash: hex(block2.hash) }]);
  t.equal(byHash.result, `0x${aliceBalanceAt(2).toString(16)}`);
  t.equal((await server.call('eth_getBalance', [hex(BOB), 'latest'])).result, '0x0', 'zero is 0x0');
  t.equal(await viem.getTransactionCount({ address: ALICE.address }), 2);
  t.equal(await viem.getTransactionCount({ address: ALICE.address, blockNumber: 2n }), 0);
  t.equal(await viem.getBytecode({ address: hex(TOKEN) }), '0x6080604052');
  t.equal((await server.call('eth_getCode', [hex(BOB), 'latest'])).result, '0x', 'no code is 0x');
  t.equal(await viem.getStorageAt({ address: hex(TOKEN), slot: '0x1', blockNumber: 4n }), `0x${'4'.padStart(64, '0')}`);
  t.equal((await server.call('eth_getStorageAt', [hex(TOKEN), '0x02', 'latest'])).result, `0x${'0'.repeat(64)}`);
});

t.test('eth_getBlockByNumber: exact header fields, tags, hashes-only and full transactions', async (t) => {
  const block3 = server.backend.blocks[3]!.block;
  const response = await server.call('eth_getBlockByNumber', ['0x3', false]);
  t.same(response.result, {
    baseFeePerGas: '0x3b9aca00',
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    gasUsed: `0x${(21_000 + 53_000).toString(16)}`,
    hash: hex(block3.hash),
    logsBloom: `0x${'00'.repeat(256)}`,
    miner: `0x${'11'.repeat(20)}`,
    mixHash: `0x${'00'.repeat(32)}`,
    nonce: '0x0000000000000000',
    number: '0x3',
    parentHash: hex(server.backend.blocks[2]!.block.hash),
    receiptsRoot: hex(block3.receiptsRoot),
    sha3Uncles: EMPTY_UNCLES_HASH,
    stateRoot: hex(block3.stateRoot),
    timestamp: `0x${(1_700_000_003).toString(16)}`,
    transactionsRoot: hex(block3.transactionsRoot),
    size: `0x${(600 + 240).toString(16)}`,
    transactions: block3.transactions.map((tx) => hex(tx.hash)),
    uncles: [],
  });
  const result = response.result as Record<string, unknown>;
  t.notOk('withdrawals' in result, 'no withdrawals');
  t.notOk('withdrawalsRoot' in result);

  const viem = client();
  const latest = await viem.getBlock();
  t.equal(latest.number, 5n);
  for (const tag of ['earliest', 'pending', 'safe', 'finalized'] as const) {
    const block = await viem.getBlock({ blockTag: tag });
    t.equal(block.number, tag === 'earliest' ? 0n : 5n, tag);
  }
  const full = await viem.getBlock({ blockNumber: 3n, includeTransactions: true });
  t.equal(full.transactions.length, 2);
  t.equal(full.transactions[0]!.type, 'eip1559');
  t.equal(full.transactions[1]!.type, 'legacy');
  const byHash = await viem.getBlock({ blockHash: hex(block3.hash) });
  t.equal(byHash.hash, hex(block3.hash));
  t.equal((await server.call('eth_getBlockByNumber', ['0x63', false])).result, null, 'future block is null');
  t.equal((await server.call('eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, true])).result, null, 'unknown hash is null');
  t.equal(await viem.getBlockTransactionCount({ blockNumber: 3n }), 2);
  t.equal(await viem.getBlockTransactionCount({ blockHash: hex(block3.hash) }), 2);
  t.equal((await server.call('eth_getBlockTransactionCountByNumber', ['0x63'])).result, null);
});

t.test('eth_getTransactionByHash: type 0x2 and legacy objects field for field', async (t) => {
  const [transferHash, createHash] = server.backend.blockThreeHashes;
  const block3 = server.backend.blocks[3]!.block;
  const transfer = await server.call('eth_getTransactionByHash', [hex(transferHash!)]);
  t.same(transfer.result, {
    blockHash: hex(block3.hash),
    blockNumber: '0x3',
    blockTimestamp: '0x6553f103',
    from: ALICE.address.toLowerCase(),
    gas: '0xea60',
    gasPrice: `0x${(BASE_FEE + 500_000_000n).toString(16)}`,
    maxFeePerGas: '0xb2d05e00',
    maxPriorityFeePerGas: '0x1dcd6500',
    hash: hex(transferHash!),
    input: '0xa9059cbb',
    nonce: '0x0',
    to: hex(TOKEN),
    transactionIndex: '0x0',
    value: '0x5',
    type: '0x2',
    accessList: [{ address: hex(TOKEN), storageKeys: [`0x${'1'.padStart(64, '0')}`] }],
    chainId: '0xae3f3',
    v: '0x1',
    r: '0x1234',
    s: '0x5678',
    yParity: '0x1',
  });
  const create = (await server.call('eth_getTransactionByHash', [hex(createHash!)])).result as Record<string, unknown>;
  t.equal(create['type'], '0x0');
  t.equal(create['to'], null);
  t.equal(create['gasPrice'], '0x77359400');
  t.equal(create['v'], `0x${(CHAIN_ID * 2n + 35n).toString(16)}`);
  t.notOk('accessList' in create, 'legacy has no accessList');
  t.notOk('yParity' in create, 'legacy has no yParity');
  t.notOk('maxFeePerGas' in create);

  const viem = client();
  const viaViem = await viem.getTransaction({ hash: hex(transferHash!) });
  t.equal(viaViem.type, 'eip1559');
  t.equal(viaViem.chainId, Number(CHAIN_ID));
  t.equal(viaViem.yParity, 1);
  t.equal((await server.call('eth_getTransactionByHash', [`0x${'99'.repeat(32)}`])).result, null, 'unknown tx is null');
});

t.test('eth_getTransactionReceipt: every field, logs included; unknown is null', async (t) => {
  const [transferHash, createHash] = server.backend.blockThreeHashes;
  const block3 = server.backend.blocks[3]!.block;
  const receipt = await server.call('eth_getTransactionReceipt', [hex(transferHash!)]);
  const log = {
    address: hex(TOKEN),
    topics: [hex(TRANSFER_TOPIC), `0x${'00'.repeat(12)}${ALICE.address.slice(2).toLowerCase()}`, `0x${'00'.repeat(12)}${'b0'.repeat(20)}`],
    data: `0x${'5'.padStart(64, '0')}`,
    blockNumber: '0x3',
    transactionHash: hex(transferHash!),
    transactionIndex: '0x0',
    blockHash: hex(block3.hash),
    blockTimestamp: '0x6553f103',
    logIndex: '0x0',
    removed: false,
  };
  t.same(receipt.result, {
    blockHash: hex(block3.hash),
    blockNumber: '0x3',
    blockTimestamp: '0x6553f103',
    contractAddress: null,
    cumulativeGasUsed: '0x5208',
    effectiveGasPrice: `0x${(BASE_FEE + 500_000_000n).toString(16)}`,
    from: ALICE.address.toLowerCase(),
    gasUsed: '0x5208',
    logs: [log],
    logsBloom: `0x${'00'.repeat(256)}`,
    status: '0x1',
    to: hex(TOKEN),
    transactionHash: hex(transferHash!),
    transactionIndex: '0x0',
    type: '0x2',
  });
  const viem = client();
  const created = await viem.getTransactionReceipt({ hash: hex(createHash!) });
  t.equal(created.contractAddress, `0x${'cc'.repeat(20)}`);
  t.equal(created.status, 'success');
  t.equal(created.type, 'legacy');
  t.equal((await server.call('eth_getTransactionReceipt', [`0x${'99'.repeat(32)}`])).result, null);
});

t.test('eth_getLogs by range, by block hash, by address and topic filters', async (t) => {
  const viem = client();
  const logs = await viem.getLogs({ fromBlock: 2n, toBlock: 4n });
  t.equal(logs.length, 1);
  t.equal(logs[0]!.address, hex(TOKEN));
  t.equal(logs[0]!.blockNumber, 3n);
  const byTopic = await server.call('eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x3', topics: [hex(TRANSFER_TOPIC)] }]);
  t.equal((byTopic.result as unknown[]).length, 1);
  const otherTopic = await server.call('eth_getLogs', [{ fromBlock: '0x3', toBlock: '0x3', topics: [null, `0x${'00'.repeat(32)}`] }]);
  t.same(otherTopic.result, [], 'a non-matching second topic filters the log out');
  const byAddress = await server.call('eth_getLogs', [{ fromBlock: '0x3', toBlock: 'latest', address: [hex(BOB)] }]);
  t.same(byAddress.result, []);
  const block3 = server.backend.blocks[3]!.block;
  const byHash = await server.call('eth_getLogs', [{ blockHash: hex(block3.hash), address: hex(TOKEN) }]);
  t.equal((byHash.result as unknown[]).length, 1);
  const latestOnly = await server.call('eth_getLogs', [{}]);
  t.same(latestOnly.result, [], 'default range is the latest block');
});

t.test('eth_call, eth_estimateGas with state overrides; gas price, priority fee, fee history', async (t) => {
  const viem = client();
  const result = await viem.call({ to: hex(BOB), data: '0x', blockNumber: 4n });
  t.equal(result.data, `0x${'4'.padStart(64, '0')}`);
  const overridden = await server.call('eth_call', [{ to: hex(BOB) }, 'latest', { [hex(BOB)]: { balance: '0x2a' } }]);
  t.equal(overridden.result, `0x${'2a'.padStart(64, '0')}`, 'the override reached the backend');
  t.equal(await viem.estimateGas({ account: ALICE.address, to: hex(BOB), data: '0x0102' }), 21_032n);
  t.equal(await viem.getGasPrice(), BASE_FEE + 100_000_000n);
  t.equal(await viem.estimateMaxPriorityFeePerGas(), 100_000_000n);
  const history = await server.call('eth_feeHistory', ['0x2', '0x3', [0, 50, 100]]);
  t.same(history.result, {
    oldestBlock: '0x2',
    baseFeePerGas: ['0x3b9aca00', '0x3b9aca00', '0x3b9aca00'],
    gasUsedRatio: [0, 74_000 / 30_000_000],
    reward: [
      ['0x0', '0x0', '0x0'],
      ['0x1dcd6500', '0x3b9aca00', '0x3b9aca00'],
    ],
  });
  const viemHistory = await viem.getFeeHistory({ blockCount: 3, blockTag: 'latest', rewardPercentiles: [25] });
  t.equal(viemHistory.oldestBlock, 3n);
  t.equal(viemHistory.baseFeePerGas.length, 4);
});

t.test('batches answer every call in order', async (t) => {
  const body = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [hex(BOB), 'latest'] },
    { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: ['0x12', 'latest'] },
  ]);
  const { text } = await server.post(body);
  t.same(JSON.parse(text), [
    { jsonrpc: '2.0', id: 1, result: '0x5' },
    { jsonrpc: '2.0', id: 2, result: '0x0' },
    { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for common.Address' } },
  ]);
  const viem = createPublicClient({ transport: http(server.url, { batch: true }) });
  const [a, b] = await Promise.all([viem.getBlockNumber(), viem.getBalance({ address: ALICE.address })]);
  t.equal(a, 5n);
  t.equal(b, aliceBalanceAt(5));
});
