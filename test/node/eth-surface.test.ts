/**
 * The eth_/txpool_/debug_getRaw* methods wallets and indexers call, on a real `stratad` and on
 * Anvil side by side, driven by ethers v6, viem and web3.js 4: the same transactions (a token
 * deployment, a transfer, a contract creation that reverts) go to both, and the answers are
 * compared where Anvil implements the method. Anvil's known departures from geth:
 * - `eth_accounts` lists its ten unlocked development accounts (geth without keys, and this
 *   node, answer []);
 * - `eth_getUncleCountByBlockHash` of an unknown hash is error -32001 "Resource not found"
 *   (geth: null);
 * - `debug_getRawReceipts` is not implemented (-32601), so raw receipts are checked against
 *   the node's own JSON receipts;
 * Everything else compared here agrees.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRlp, encodeRlp, getBytes, JsonRpcProvider, keccak256, toUtf8Bytes, Wallet, ContractFactory, Contract, type InterfaceAbi } from 'ethers';
import { createPublicClient, http } from 'viem';
import { Web3 } from 'web3';
import { launchAnvil } from '../../bench/node/anvil-process.js';
import { fundOnAnvil } from '../../bench/trace/anvil.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { ROOT, initHome, startNode } from './fixtures/node-process.js';
import { chainOf, rawRpc } from './fixtures/rpc-client.js';

const token = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'token.json'), 'utf8')) as { abi: InterfaceAbi; bytecode: string };
const CHAIN_ID = 713715;
/** Init code that reverts at once: PUSH1 0, PUSH1 0, REVERT. */
const REVERTING_INIT = '0x60006000fd';

type Json = Record<string, unknown>;

async function call(port: number, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  return (await rawRpc(port, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).json as { result?: unknown; error?: { code: number; message: string } };
}

async function result<T = unknown>(port: number, method: string, params: unknown[] = []): Promise<T> {
  const answer = await call(port, method, params);
  if (answer.error !== undefined) throw new Error(`${method} on ${port}: ${JSON.stringify(answer.error)}`);
  return answer.result as T;
}

/** What a chain's side of the comparison produced. */
interface Run {
  port: number;
  token: string;
  transferHash: string;
  transferBlock: number;
  failedHash: string;
  failedBlock: number;
}

/** Deploys the token, transfers some, and sends a creation that reverts, through ethers. */
async function drive(port: number, key: string): Promise<Run> {
  // No response cache: Anvil mines at once, and a cached pending nonce would be reused.
  const provider = new JsonRpcProvider(`http://127.0.0.1:${port}`, CHAIN_ID, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
  try {
    const wallet = new Wallet(key, provider);
    const deployed = await new ContractFactory(token.abi, token.bytecode, wallet).deploy('Surface', 'SRF', 1_000_000n);
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();
    const sent = await new Contract(address, token.abi, wallet).getFunction('transfer')('0x00000000000000000000000000000000c0ffee03', 7n);
    const receipt = (await sent.wait())!;
    const failed = await wallet.sendTransaction({ data: REVERTING_INIT, gasLimit: 100_000n });
    const failedReceipt = await provider.waitForTransaction(failed.hash);
    return { port, token: address.toLowerCase(), transferHash: sent.hash, transferBlock: receipt.blockNumber, failedHash: failed.hash, failedBlock: failedReceipt!.blockNumber };
  } finally {
    provider.destroy();
  }
}

/** The receipt fields two chains running the same transactions must agree on. */
function comparable(receipt: Json): Json {
  const logs = (receipt['logs'] as Json[]).map((log) => ({ address: log['address'], topics: log['topics'], data: log['data'], removed: log['removed'] }));
  return {
    contractAddress: receipt['contractAddress'],
    from: receipt['from'],
    gasUsed: receipt['gasUsed'],
    status: receipt['status'],
    to: receipt['to'],
    type: receipt['type'],
    logsBloom: receipt['logsBloom'],
    logs,
  };
}

t.test('stratad answers the wallet and indexer methods as geth does, compared with Anvil', async (t) => {
  const home = await initHome(t, 400);
  const node = await startNode(t, home);
  const anvil = await launchAnvil(['--chain-id', String(CHAIN_ID), '--hardfork', 'prague', '--gas-limit', '30000000']);
  t.teardown(() => anvil.stop());
  const [funder, second] = devAccounts(2);
  await fundOnAnvil(anvil.port, [funder!.address], 10n ** 24n);

  const ours = await drive(home.http, funder!.privateKey);
  const theirs = await drive(anvil.port, funder!.privateKey);
  t.equal(ours.token, theirs.token, 'same deployer and nonce: same token address');

  // eth_getBlockReceipts: the transfer's block, then the failed creation's.
  for (const [label, pick] of [['transfer', (r: Run) => [r.transferBlock, r.transferHash] as const], ['failed creation', (r: Run) => [r.failedBlock, r.failedHash] as const]] as const) {
    const receiptOf = async (run: Run) => {
      const [height, hash] = pick(run);
      const receipts = await result<Json[]>(run.port, 'eth_getBlockReceipts', [`0x${height.toString(16)}`]);
      const receipt = receipts.find((r) => r['transactionHash'] === hash)!;
      t.same(receipt, await result<Json>(run.port, 'eth_getTransactionReceipt', [hash]), `${label}: eth_getBlockReceipts holds the same receipt as eth_getTransactionReceipt (port ${run.port})`);
      return receipt;
    };
    const mine = await receiptOf(ours);
    const anvils = await receiptOf(theirs);
    t.same(comparable(mine), comparable(anvils), `${label}: the receipt matches Anvil's`);
  }
  const failed = await result<Json>(home.http, 'eth_getTransactionReceipt', [ours.failedHash]);
  t.equal(failed['status'], '0x0');
  t.match(failed['contractAddress'], /^0x[0-9a-f]{40}$/, 'a failed creation names the address it would have had');

  // blockTimestamp on receipts, their logs and mined transactions: the block's timestamp.
  const transferBlock = await result<Json>(home.http, 'eth_getBlockByNumber', [`0x${ours.transferBlock.toString(16)}`, false]);
  const transferReceipt = await result<Json>(home.http, 'eth_getTransactionReceipt', [ours.transferHash]);
  t.equal(transferReceipt['blockTimestamp'], transferBlock['timestamp']);
  t.equal((transferReceipt['logs'] as Json[])[0]!['blockTimestamp'], transferBlock['timestamp']);
  const transferTx = await result<Json>(home.http, 'eth_getTransactionByHash', [ours.transferHash]);
  t.equal(transferTx['blockTimestamp'], transferBlock['timestamp']);
  const logs = await result<Json[]>(home.http, 'eth_getLogs', [{ address: ours.token, fromBlock: `0x${ours.transferBlock.toString(16)}`, toBlock: `0x${ours.transferBlock.toString(16)}` }]);
  t.equal(logs[0]!['blockTimestamp'], transferBlock['timestamp'], 'eth_getLogs too');

  // Transactions by block and index: through viem (number) and web3.js (hash), checked against eth_getTransactionByHash.
  const viem = createPublicClient({ chain: chainOf(home.http, home.ws), transport: http() });
  const index = Number(transferReceipt['transactionIndex']);
  const byNumber = await viem.getTransaction({ blockNumber: BigInt(ours.transferBlock), index });
  t.equal(byNumber.hash, ours.transferHash, 'viem: eth_getTransactionByBlockNumberAndIndex');
  const web3 = new Web3(`http://127.0.0.1:${home.http}`);
  const byHash = await web3.eth.getTransactionFromBlock(transferBlock['hash'] as string, index);
  t.equal(byHash?.hash, ours.transferHash, 'web3: eth_getTransactionByBlockHashAndIndex');
  t.same(
    await result(home.http, 'eth_getTransactionByBlockHashAndIndex', [transferBlock['hash'], `0x${index.toString(16)}`]),
    transferTx,
    'field for field the object eth_getTransactionByHash gives',
  );
  for (const port of [home.http, anvil.port]) {
    t.equal(await result(port, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x63']), null, `an index past the block is null (port ${port})`);
    t.equal(await result(port, 'eth_getTransactionByBlockHashAndIndex', [`0x${'ab'.repeat(32)}`, '0x0']), null, `an unknown block is null (port ${port})`);
    t.equal(await result(port, 'eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, false]), null, `eth_getBlockByHash of an unknown hash is null (port ${port})`);
    t.equal(await result(port, 'eth_getBlockReceipts', ['0xffffff']), null, `receipts of a block past the head are null (port ${port})`);
    t.equal(await result(port, 'eth_getUncleCountByBlockNumber', ['0x1']), '0x0', `no uncles (port ${port})`);
  }
  t.equal(await result(home.http, 'eth_getUncleCountByBlockHash', [transferBlock['hash']]), '0x0', 'a known block has no uncles');
  t.equal(await result(home.http, 'eth_getUncleCountByBlockHash', [`0x${'ab'.repeat(32)}`]), null, 'an unknown block has no uncle count');
  t.same((await call(anvil.port, 'eth_getUncleCountByBlockHash', [`0x${'ab'.repeat(32)}`])).error?.code, -32001, 'Anvil answers an unknown hash with an error instead');
  t.equal(await web3.eth.getBlockUncleCount(ours.transferBlock), 0n, 'web3: uncle count');

  // Small methods, against Anvil where it agrees with geth.
  for (const [method, params] of [
    ['web3_sha3', ['0x68656c6c6f']],
    ['eth_blobBaseFee', []],
  ] as const) {
    t.same(await result(home.http, method, [...params]), await result(anvil.port, method, [...params]), `${method} matches Anvil`);
  }
  t.equal(await result(home.http, 'web3_sha3', ['0x68656c6c6f']), keccak256(toUtf8Bytes('hello')));
  t.same(await result(home.http, 'eth_accounts'), [], 'eth_accounts: the node holds no keys');
  t.equal(await result(home.http, 'net_peerCount'), '0x0');
  t.equal(await web3.eth.net.getPeerCount(), 0n, 'web3: net_peerCount');

  // eth_getStorageValues: the words eth_getStorageAt gives, in request order, bounded as geth bounds it.
  const slots = ['0x0', '0x1', '0x2'].map((s) => `0x${s.slice(2).padStart(64, '0')}`);
  const values = await result<Record<string, string[]>>(home.http, 'eth_getStorageValues', [{ [ours.token]: slots }, 'latest']);
  const single = await Promise.all(slots.map((slot) => result<string>(home.http, 'eth_getStorageAt', [ours.token, slot, 'latest'])));
  t.same(values, { [ours.token]: single });
  const tooMany = Array.from({ length: 1025 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`);
  t.same((await call(home.http, 'eth_getStorageValues', [{ [ours.token]: tooMany }, 'latest'])).error, { code: -38026, message: 'too many slots (max 1024)' });
  t.same((await call(home.http, 'eth_getStorageValues', [{ [ours.token]: [] }, 'latest'])).error, { code: -32602, message: 'empty request' });

  // Raw data: a transaction's envelope hashes to its hash; a header's encoding to the block hash.
  for (const run of [ours, theirs]) {
    const raw = await result<string>(run.port, 'debug_getRawTransaction', [run.transferHash]);
    t.equal(keccak256(raw), run.transferHash, `debug_getRawTransaction hashes to the tx hash (port ${run.port})`);
    t.equal(await result(run.port, 'debug_getRawTransaction', [`0x${'ab'.repeat(32)}`]), null, `an unknown tx is null (port ${run.port})`);
  }
  const rawHeader = await result<string>(home.http, 'debug_getRawHeader', [`0x${ours.transferBlock.toString(16)}`]);
  t.equal(keccak256(rawHeader), transferBlock['hash'], 'debug_getRawHeader hashes to the block hash');
  const rawBlock = decodeRlp(await result<string>(home.http, 'debug_getRawBlock', [transferBlock['hash']])) as unknown[];
  t.equal(keccak256(rawHeader), keccak256(encodeRlp(rawBlock[0] as string[])), 'debug_getRawBlock starts with the same header');
  const rawTx = await result<string>(home.http, 'debug_getRawTransaction', [ours.transferHash]);
  t.ok((rawBlock[1] as string[]).includes(rawTx), 'and holds the transaction');
  const receipts = await result<Json[]>(home.http, 'eth_getBlockReceipts', [`0x${ours.transferBlock.toString(16)}`]);
  const rawReceipts = await result<string[]>(home.http, 'debug_getRawReceipts', [`0x${ours.transferBlock.toString(16)}`]);
  t.equal(rawReceipts.length, receipts.length);
  const position = receipts.findIndex((r) => r['transactionHash'] === ours.transferHash);
  const json = receipts[position]!;
  const decoded = decodeReceipt(rawReceipts[position]!);
  const jsonLogs = (json['logs'] as Json[]).map((log) => [log['address'], log['topics'], log['data']]);
  t.same(
    decoded,
    { type: 2, status: '0x01', cumulativeGasUsed: BigInt(json['cumulativeGasUsed'] as string), bloom: json['logsBloom'], logs: jsonLogs },
    'debug_getRawReceipts: the consensus encoding of the receipt eth_getBlockReceipts shows',
  );
  t.same((await call(anvil.port, 'debug_getRawReceipts', ['0x1'])).error?.code, -32601, 'Anvil does not implement debug_getRawReceipts');
  for (const method of ['debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts']) {
    t.same((await call(home.http, method, ['0xffffff'])).error?.code, -32000, `${method} of a missing block is an error`);
  }

  // txpool: a transaction waiting for the next block, in geth's shape (sender → nonce → tx).
  const wallet = new Wallet(second!.privateKey);
  let seen: Json | undefined;
  for (let nonce = 0; nonce < 8 && seen === undefined; nonce++) {
    const signed = await wallet.signTransaction({ to: wallet.address, value: 1n, nonce, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: CHAIN_ID, type: 2 });
    const hash = await result<string>(home.http, 'eth_sendRawTransaction', [signed]);
    const [content, from, status] = await Promise.all([
      result<{ pending: Record<string, Record<string, Json>>; queued: Json }>(home.http, 'txpool_content'),
      result<{ pending: Record<string, Json>; queued: Json }>(home.http, 'txpool_contentFrom', [wallet.address]),
      result<Json>(home.http, 'txpool_status'),
    ]);
    // The producer may have taken it between the two calls; then the next nonce tries again.
    const entry = content.pending[wallet.address]?.[String(nonce)];
    if (entry === undefined) continue;
    seen = entry;
    t.equal(entry['hash'], hash);
    t.equal(entry['blockHash'], null, 'rendered as a pending transaction');
    t.same(from.pending[String(nonce)], entry, 'txpool_contentFrom: the same transaction keyed by nonce');
    t.same(content.queued, {}, 'nothing queued: this mempool refuses nonce gaps');
    t.match(status, { pending: /^0x[1-9a-f]/, queued: '0x0' });
  }
  t.ok(seen, 'a pending transaction was seen in txpool_content');
  t.same(await result(home.http, 'txpool_contentFrom', [`0x${'00'.repeat(20)}`]), { pending: {}, queued: {} });
  // Once the pool is empty (nothing else submits), ethers, web3.js and viem read the txpool methods as the raw RPC gives them.
  let status: Json = {};
  for (let i = 0; i < 100; i++) {
    status = await result<Json>(home.http, 'txpool_status');
    if (status['pending'] === '0x0') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.same(status, { pending: '0x0', queued: '0x0' }, 'the pool emptied into blocks');
  const provider = new JsonRpcProvider(`http://127.0.0.1:${home.http}`, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  for (const [method, params] of [['txpool_status', []], ['txpool_content', []], ['txpool_contentFrom', [wallet.address]]] as const) {
    const raw = await result(home.http, method, [...params]);
    t.same(await provider.send(method, [...params]), raw, `ethers: ${method}`);
    t.same(await web3.requestManager.send({ method, params: [...params] }), raw, `web3.js: ${method}`);
    t.same(await viem.request({ method, params: [...params] } as never), raw, `viem: ${method}`);
  }
  provider.destroy();

  // Parameter errors as geth gives them.
  const errors: [string, unknown[], number, string][] = [
    ['eth_getTransactionByBlockNumberAndIndex', ['0x1', 1], -32602, 'invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint'],
    ['eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x01'], -32602, 'invalid argument 1: hex number with leading zero digits'],
    ['eth_getBlockReceipts', [], -32602, 'missing value for required argument 0'],
    ['eth_getStorageValues', [[], 'latest'], -32602, 'invalid argument 0: json: cannot unmarshal non-object into Go value of type map[common.Address][]common.Hash'],
    ['web3_sha3', ['0x123'], -32602, 'invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes'],
    ['txpool_contentFrom', ['0x12'], -32602, 'invalid argument 0: hex string has length 2, want 40 for common.Address'],
    ['eth_accounts', [1], -32602, 'too many arguments, want at most 0'],
  ];
  for (const [method, params, code, message] of errors) {
    t.same((await call(home.http, method, params)).error, { code, message }, `${method} ${JSON.stringify(params)}`);
  }
  t.equal(await node.stop(), 0, 'the node stops cleanly');
});

/** A typed or legacy consensus receipt, decoded. */
function decodeReceipt(raw: string): { type: number; status: string; cumulativeGasUsed: bigint; bloom: string; logs: unknown } {
  const bytes = getBytes(raw);
  const typed = bytes[0]! < 0x80;
  const [status, cumulative, bloom, logs] = decodeRlp(typed ? bytes.subarray(1) : bytes) as [string, string, string, unknown];
  return { type: typed ? bytes[0]! : 0, status, cumulativeGasUsed: cumulative === '0x' ? 0n : BigInt(cumulative), bloom, logs };
}
