/**
 * The migration end to end: validator A produces blocks with EVM state (transfers, an ERC-20
 * and its transfers) and writes a snapshot every 5 blocks; RPC node B, which followed A and
 * stopped, is migrated with `--rpc <A>` while A moves on. Afterwards A and B answer
 * eth_getBalance, eth_getStorageAt, eth_getCode, eth_call and debug_traceTransaction the same
 * at every height both retain, B's state starts at a snapshot height (it was state-synced, not
 * replayed from genesis), and B's EVM keys are only under data/evm_ss/ (stratadb dump-db).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { createPublicClient, createWalletClient, encodeAbiParameters, encodeFunctionData, http, keccak256, parseEther, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig } from '../../src/config/index.js';
import { TOKEN } from '../fixtures/chain.js';
import { ROOT } from '../node/fixtures/node-process.js';
import { chainOf } from '../node/fixtures/rpc-client.js';
import { heightOf, waitUntil } from '../sync/fixtures/network.js';
import { SNAPSHOT_INTERVAL, evmCall, runStratad, startedPid, startValidator, stopPid, stoppedRpcNode } from './fixtures.js';

/** Storage slot of `balanceOf[holder]` in test/fixtures/Token.sol (the mapping is slot 3). */
function balanceSlot(holder: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 3n]));
}

/** The module stores that hold keys in the state store at `dir`. */
function storesIn(dir: string, backend: string): Map<string, number> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'stratadb.ts'), 'dump-db', '-d', dir, '--backend', backend], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`stratadb dump-db -d ${dir} failed: ${r.stderr}`);
  const counts = new Map<string, number>();
  for (const line of r.stdout.split('\n').filter(Boolean)) {
    const store = line.split(' ')[0]!;
    counts.set(store, (counts.get(store) ?? 0) + 1);
  }
  return counts;
}

t.test('a migrated RPC node serves what the validator serves, with EVM state only in data/evm_ss/', async (t) => {
  const net = await startValidator(t);
  const A = net.validator;
  const chain = chainOf(A.http, A.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 }) as PublicClient;
  const [funder] = devAccounts(1);
  const account = privateKeyToAccount(funder!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000c0ffee02' as const;
  const mined = async (hash: Hex): Promise<{ hash: Hex; block: number }> => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    t.equal(receipt.status, 'success');
    return { hash, block: Number(receipt.blockNumber) };
  };

  const txs = [await mined(await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') }))];
  const deploy = await client.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['Strata Token', 'STR', 1_000_000n] }),
    pollingInterval: 100,
  });
  const token = deploy.contractAddress!.toLowerCase() as Hex;
  txs.push({ hash: deploy.transactionHash, block: Number(deploy.blockNumber) });
  txs.push(await mined(await wallet.writeContract({ address: token, abi: TOKEN.abi, functionName: 'transfer', args: [recipient, 250n] })));

  const B = await stoppedRpcNode(t, net, (await heightOf(A)) + 1);
  // A moves on while B is stopped: B must get these from A after the migration.
  txs.push(await mined(await wallet.writeContract({ address: token, abi: TOKEN.abi, functionName: 'transfer', args: [recipient, 40n] })));
  txs.push(await mined(await wallet.sendTransaction({ to: recipient, value: parseEther('0.25') })));

  const run = await runStratad(['migrate', 'evm-ss-split', '--rpc', net.rpcUrl, '--trust-delta', '2', '--yes', '--home', B.home, '--ready-timeout', '400'], 500_000);
  t.equal(run.status, 0, 'the migration succeeds', { stdout: run.stdout, stderr: run.stderr });
  const pid = startedPid(t, run);
  const trustHeight = (await loadConfig(B.home)).node.statesync.trustHeight;

  // B restores a snapshot A still keeps (A keeps the newest two, one every 5 blocks), which may
  // be newer than the trust height; transactions after the migration land at heights B retains.
  await waitUntil('B serving', async () => (await heightOf(B)) > 0, 300_000);
  txs.push(await mined(await wallet.writeContract({ address: token, abi: TOKEN.abi, functionName: 'transfer', args: [recipient, 7n] })));
  txs.push(await mined(await wallet.sendTransaction({ to: recipient, value: parseEther('0.125') })));
  const target = Math.max(...txs.map((tx) => tx.block)) + 2;
  await waitUntil(`B at height ${target}`, async () => (await heightOf(B)) >= target, 300_000);

  const sender = account.address.toLowerCase();
  const calls: Array<[string, (h: Hex) => unknown[]]> = [
    ['eth_getBalance', (h) => [sender, h]],
    ['eth_getBalance', (h) => [recipient, h]],
    ['eth_getStorageAt', (h) => [token, balanceSlot(recipient), h]],
    ['eth_getStorageAt', (h) => [token, '0x2', h]],
    ['eth_getCode', (h) => [token, h]],
    ['eth_call', (h) => [{ to: token, data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'balanceOf', args: [recipient] }) }, h]],
  ];
  let compared = 0;
  let firstRetained: number | undefined;
  for (let height = 1; height <= target; height++) {
    const h = `0x${height.toString(16)}` as Hex;
    for (const [method, params] of calls) {
      const [a, b] = [await evmCall(A.http, method, params(h)), await evmCall(B.http, method, params(h))];
      if (b.error !== undefined) {
        // B keeps state from its snapshot height on: a missing height is one below all it retains.
        t.equal(firstRetained, undefined, `B misses ${method} at ${height} only below the heights it retains: ${b.error.message}`);
        continue;
      }
      firstRetained ??= height;
      t.notOk(a.error, `A answers ${method} at ${height}`);
      if (JSON.stringify(a.result) !== JSON.stringify(b.result)) t.fail(`${method}(${JSON.stringify(params(h))}): A ${JSON.stringify(a.result)}, B ${JSON.stringify(b.result)}`);
      compared++;
    }
  }
  // A wipe followed by a state sync: B's state starts at the snapshot it restored, not at genesis.
  // A wipe followed by a state sync: B's state starts at the snapshot it restored (a multiple of
  // A's snapshot interval, at or above the trust height's neighbourhood), not at genesis.
  t.ok(firstRetained !== undefined && firstRetained > 1 && firstRetained % SNAPSHOT_INTERVAL === 0, `B was state-synced: its state starts at a snapshot height, found ${firstRetained} (trust height ${trustHeight})`);
  t.ok(firstRetained !== undefined && compared >= calls.length * (target - firstRetained + 1), `A and B agree on ${compared} reads at every height both retain (from ${firstRetained})`);
  t.ok(txs.filter((tx) => firstRetained !== undefined && tx.block >= firstRetained).length >= 2, 'transactions after the migration are among the compared heights');
  for (const tx of txs.filter((tx) => firstRetained !== undefined && tx.block >= firstRetained)) {
    const [a, b] = [await evmCall(A.http, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }]), await evmCall(B.http, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }])];
    t.notOk(b.error, `B traces ${tx.hash}`);
    t.same(b.result, a.result, `debug_traceTransaction ${tx.hash} (block ${tx.block}) is the same on A and B`);
  }

  await stopPid(pid);
  const config = await loadConfig(B.home);
  const backend = config.app.stateStore.backend;
  const cosmos = storesIn(join(B.home, 'data', backend), backend);
  const evm = storesIn(join(B.home, 'data', 'evm_ss'), backend);
  t.notOk(cosmos.has('evm'), `the Cosmos SS holds no evm keys (stores: ${[...cosmos.keys()].join(', ')})`);
  t.ok(cosmos.size > 0, 'the Cosmos SS holds the non-EVM stores');
  t.ok((evm.get('evm') ?? 0) > 0, `the EVM SS holds the evm keys (${evm.get('evm') ?? 0})`);
  t.same([...evm.keys()], ['evm'], 'the EVM SS holds evm keys only');
});
