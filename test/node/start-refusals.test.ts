/**
 * A node that must not run refuses to start, says why and what to do, and changes nothing on
 * disk; a state store restored from an older backup is brought level again by re-executing
 * the stored blocks; the mempool refuses transactions that could never be included or could be
 * replayed on another chain. Real `stratad` processes on loopback ports.
 */
import t from 'tap';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, parseGwei, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { chainOf, rawRpc } from './fixtures/rpc-client.js';
import { initHome, startNode, stratad, type TestHome } from './fixtures/node-process.js';

/** Every file under `dir` with its size and modification time, to prove a refused start wrote nothing. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else out.push(`${full} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

async function waitForHeight(home: TestHome, height: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { json } = await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}');
    if (Number((json as { result: string }).result) >= height) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the node did not reach height ${height}`);
}

t.test('a genesis.json changed after the first start is refused, naming both hashes', async (t) => {
  const home = await initHome(t);
  const node = await startNode(t, home);
  await waitForHeight(home, 2);
  t.equal(await node.stop(), 0);
  const path = join(home.home, 'config', 'genesis.json');
  const genesis = JSON.parse(readFileSync(path, 'utf8')) as { chain_id: string };
  writeFileSync(path, JSON.stringify({ ...genesis, chain_id: 'another-chain-1' }, null, 2));
  const before = snapshot(join(home.home, 'data'));
  const refused = stratad(['start', '--home', home.home]);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /genesis\.json is not the genesis this home's chain started from \(recorded sha256 [0-9a-f]{64}, the file now hashes to [0-9a-f]{64}\); restore the original genesis\.json/);
  t.same(snapshot(join(home.home, 'data')), before, 'the refused start changed nothing on disk');
  // Key order and whitespace are not a different genesis.
  writeFileSync(path, JSON.stringify(genesis));
  const again = await startNode(t, home);
  t.equal(await again.stop(), 0, 'the original genesis, reformatted, starts');
});

t.test('a busy port and a damaged key file are refused before any store is opened', async (t) => {
  const home = await initHome(t);
  const before = snapshot(join(home.home, 'data'));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(home.http, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const busy = stratad(['start', '--home', home.home]);
  t.equal(busy.status, 1);
  t.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${home.http} \\(\\[evm\\] http-port in app\\.toml\\): EADDRINUSE; stop the process that uses it, or configure another port`));
  t.notMatch(busy.stderr, /\n\s+at /, 'no stack trace');
  t.same(snapshot(join(home.home, 'data')), before, 'nothing was written');

  writeFileSync(join(home.home, 'config', 'priv_validator_key.json'), '{"address": "oops"');
  const badKey = stratad(['start', '--home', home.home]);
  t.equal(badKey.status, 1);
  t.match(badKey.stderr, /priv_validator_key\.json/);
  t.notMatch(badKey.stderr, /\n\s+at /, 'no stack trace');
  t.same(snapshot(join(home.home, 'data')), before, 'nothing was written');
});

t.test('a deleted state store is refused; one restored from an older backup is brought level by re-execution', async (t) => {
  const home = await initHome(t);
  let node = await startNode(t, home);
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 });
  const account = privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000000b0b01' as const;
  const send = async (value: bigint) => client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: recipient, value }), pollingInterval: 100 });
  await send(parseEther('1'));
  t.equal(await node.stop(), 0);
  const ssDir = join(home.home, 'data', 'pebbledb');
  const backup = join(home.home, 'pebbledb-backup');
  cpSync(ssDir, backup, { recursive: true });

  node = await startNode(t, home);
  for (let i = 2; i <= 4; i++) await send(parseEther(String(i)));
  const head = Number(await client.getBlockNumber());
  const expected: bigint[] = [];
  for (let h = 0; h <= head; h++) expected.push(await client.getBalance({ address: recipient, blockNumber: BigInt(h) }));
  t.equal(await node.stop(), 0);

  rmSync(ssDir, { recursive: true, force: true });
  const refused = stratad(['start', '--home', home.home]);
  t.equal(refused.status, 1);
  t.match(refused.stderr, /the state store \(.*pebbledb, ss-backend "pebbledb"\) holds no history but the state commitment has committed blocks: historical queries would be answered wrongly/);
  t.match(refused.stderr, /restore the state store directory from a backup of this node, or state-sync/);
  t.notOk(existsSync(ssDir), 'no empty state store was created');

  cpSync(backup, ssDir, { recursive: true });
  node = await startNode(t, home);
  t.match(node.output(), /the state store was behind the state commitment: rolled the commitment back/);
  const served: bigint[] = [];
  for (let h = 0; h <= head; h++) served.push(await client.getBalance({ address: recipient, blockNumber: BigInt(h) }));
  t.same(served, expected, 'every height reads as before the state store was lost');
  await waitForHeight(home, head + 2);
  t.equal(await client.getBalance({ address: recipient }), parseEther('10'), 'the chain goes on from the same state');
  t.equal(await node.stop(), 0);
});

t.test('the mempool refuses unprotected transactions, gas above the block limit, and answers fee history from genesis', async (t) => {
  const home = await initHome(t);
  const node = await startNode(t, home);
  const chain = chainOf(home.http, home.ws);
  const account = privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });
  const to = '0x00000000000000000000000000000000000c0c01' as const;

  const unprotected = await account.signTransaction({ type: 'legacy', to, value: 1n, nonce: 0, gas: 21_000n, gasPrice: parseGwei('10') });
  const sent = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [unprotected] }))).json;
  t.same(sent, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'only replay-protected (EIP-155) transactions allowed over RPC' } });

  const huge = await wallet.signTransaction({ to, value: 1n, nonce: 0, gas: 30_000_001n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') });
  const refused = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: [huge] }))).json;
  t.same(refused, { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'exceeds block gas limit' } });

  await waitForHeight(home, 2);
  const history = (await rawRpc(home.http, '{"jsonrpc":"2.0","id":3,"method":"eth_feeHistory","params":["0x400","latest",[50]]}')).json as { result: { oldestBlock: string; baseFeePerGas: string[]; reward: string[][] } };
  t.equal(history.result.oldestBlock, '0x0', 'a block count above the chain height starts at genesis');
  t.ok(history.result.reward.length >= 3, 'and reports every block');
  t.equal(await node.stop(), 0);
});
