/**
 * Polling filters on a real `stratad`: ethers v6 block, pending-transaction and contract events
 * (ethers polls the last two through eth_newPendingTransactionFilter / eth_newFilter and
 * eth_getFilterChanges), web3.js 4 polling a block filter and a log filter, and the
 * `max-filters` / `filter-timeout` settings of app.toml.
 */
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import { Web3, rpcMethods } from 'web3';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { Duration, loadConfig, renderAppToml } from '../../src/config/index.js';
import { ROOT, initHome, startNode, type TestHome } from './fixtures/node-process.js';
import { rawRpc } from './fixtures/rpc-client.js';

const token = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'token.json'), 'utf8')) as { abi: InterfaceAbi; bytecode: string };

/** Rewrites app.toml with the filter settings under test. */
async function setFilterLimits(home: TestHome, maxFilters: number, timeout: string): Promise<void> {
  const config = await loadConfig(home.home);
  const app = { ...config.app, evm: { ...config.app.evm, maxFilters, filterTimeout: Duration.parse(timeout) } };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml(app));
}

async function rpc(port: number, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  return (await rawRpc(port, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).json as { result?: unknown; error?: { code: number; message: string } };
}

/** Resolves once `predicate` holds, failing after `ms`. */
async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

t.test('ethers v6 and web3.js 4 receive blocks, pending transactions and events through filters', async (t) => {
  const home = await initHome(t, 300);
  // Long enough that ethers' own filters (polled once per new block) survive a loaded machine.
  await setFilterLimits(home, 6, '8s');
  const node = await startNode(t, home);
  const url = `http://127.0.0.1:${home.http}`;
  const provider = new JsonRpcProvider(url, 713715, { staticNetwork: true, pollingInterval: 100 });
  let destroyed = false;
  t.teardown(() => {
    if (!destroyed) provider.destroy();
  });
  const [funder] = devAccounts(1);
  const wallet = new Wallet(funder!.privateKey, provider);

  // ethers: 'block' (eth_blockNumber polling) and 'pending' (a pending-transaction filter).
  const blocks: number[] = [];
  await provider.on('block', (n: number) => blocks.push(n));
  const pending: string[] = [];
  await provider.on('pending', (hash: string) => pending.push(hash));
  await until(() => blocks.length >= 2, 10_000, 'two ethers block events');
  t.ok(blocks[1]! > blocks[0]!, 'block numbers increase');

  const factory = new ContractFactory(token.abi, token.bytecode, wallet);
  const deployed = await factory.deploy('Filter Token', 'FLT', 1_000_000n);
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();
  const contract = new Contract(address, token.abi, wallet);
  await until(() => pending.includes(deployed.deploymentTransaction()!.hash), 10_000, 'the deploy tx as a pending event');
  t.pass('ethers "pending" saw the deployment transaction');

  // ethers contract events: an eth_newFilter polled with eth_getFilterChanges.
  const transfers: { to: string; value: bigint; hash: string }[] = [];
  await contract.on('Transfer', (_from: string, to: string, value: bigint, event: { log: { transactionHash: string } }) => {
    transfers.push({ to: to.toLowerCase(), value, hash: event.log.transactionHash });
  });
  // web3.js 4: a block filter and a log filter, polled by hand.
  const web3 = new Web3(url);
  const manager = web3.requestManager;
  const blockFilter = await rpcMethods.ethRpcMethods.newBlockFilter(manager);
  const logFilter = await rpcMethods.ethRpcMethods.newFilter(manager, { address });
  t.match(blockFilter, /^0x[0-9a-f]+$/);

  const recipient = '0x00000000000000000000000000000000c0ffee02';
  const sent = await contract.getFunction('transfer')(recipient, 42n);
  const receipt = await sent.wait();
  t.equal(receipt?.status, 1);
  await until(() => transfers.length >= 1, 10_000, 'the ethers Transfer event');
  t.same(transfers[0], { to: recipient, value: 42n, hash: sent.hash }, 'ethers delivered the Transfer through its log filter');

  const hashes = (await rpcMethods.ethRpcMethods.getFilterChanges(manager, blockFilter)) as string[];
  t.ok(hashes.length >= 1, 'web3: block hashes since the filter was installed');
  const block = await web3.eth.getBlock(hashes[0]!);
  t.equal(block.hash, hashes[0], 'each is a real block hash');
  const logs = (await rpcMethods.ethRpcMethods.getFilterChanges(manager, logFilter)) as { transactionHash: string; address: string }[];
  t.same(logs.map((l) => l.transactionHash), [sent.hash], 'web3: the transfer log');
  t.same(await rpcMethods.ethRpcMethods.getFilterChanges(manager, logFilter), [], 'nothing new on the second poll');
  const at = `0x${receipt!.blockNumber.toString(16)}`;
  const ranged = await rpcMethods.ethRpcMethods.newFilter(manager, { address, fromBlock: at, toBlock: at });
  const stored = (await rpcMethods.ethRpcMethods.getFilterLogs(manager, ranged)) as { transactionHash: string }[];
  t.same(stored.map((l) => l.transactionHash), [sent.hash], 'web3: getFilterLogs reads the logs already in the chain');
  t.equal(await rpcMethods.ethRpcMethods.uninstallFilter(manager, ranged), true);
  t.equal(await rpcMethods.ethRpcMethods.uninstallFilter(manager, logFilter), true);
  t.equal(await rpcMethods.ethRpcMethods.uninstallFilter(manager, logFilter), false);

  // max-filters = 6: ethers holds two (pending + Transfer), web3 one block filter; three more fill the table.
  for (let i = 0; i < 3; i++) t.match((await rpc(home.http, 'eth_newBlockFilter')).result, /^0x/);
  const full = await rpc(home.http, 'eth_newBlockFilter');
  t.equal(full.error?.code, -32005, 'a full table is a limit error');
  t.match(full.error?.message, /max-filters is 6/);

  // filter-timeout = 8s: the filters nobody polls (the three above, web3's block filter) expire; ethers' keep polling.
  await sleep(9000);
  t.match(await rpc(home.http, 'eth_getFilterChanges', [blockFilter]), { error: { code: -32000, message: 'filter not found' } }, 'an idle filter expired');
  t.match((await rpc(home.http, 'eth_newBlockFilter')).result, /^0x/, 'expired filters freed their places');

  await contract.removeAllListeners();
  await provider.removeAllListeners();
  // ethers uninstalls its filters in the background; let that finish before the provider goes.
  await sleep(500);
  provider.destroy();
  destroyed = true;
  t.equal(await node.stop(), 0, 'the node stops cleanly');
});
