/**
 * A validator and two RPC followers as real processes on loopback: transfers and an ERC-20
 * sent to a follower are gossiped to the validator and land in blocks; at every height the
 * three nodes answer balances, storage, code, calls, blocks, receipts and callTracer traces
 * identically (one follower runs with evm-ss-split); /net_info, /status and /lag_status
 * report the peers and the sync.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { ROOT, startNode } from '../node/fixtures/node-process.js';
import { chainOf, rpcResult } from '../node/fixtures/rpc-client.js';
import { consensus, followerHome, heightOf, validatorHome, waitUntil, type NetHome } from './fixtures/network.js';

const token = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'token.json'), 'utf8')) as { abi: Abi; bytecode: Hex };

t.test('followers serve the validator chain and relay transactions', async (t) => {
  const validator = await validatorHome(t, 300);
  const plain = await followerHome(t, validator);
  const split = await followerHome(t, validator, { evmSsSplit: true });
  await startNode(t, validator);
  await startNode(t, plain);
  await startNode(t, split);
  const nodes: NetHome[] = [validator, plain, split];

  // Peers: each follower dialled the validator, which sees both inbound.
  await waitUntil('peers connected', async () => (await consensus(validator, '/net_info')).result.n_peers === '2');
  const net = (await consensus(plain, '/net_info')).result as { n_peers: string; peers: Array<{ node_info: { id: string }; is_outbound: boolean; remote_ip: string }> };
  t.equal(net.n_peers, '1');
  t.equal(net.peers[0]!.node_info.id, validator.nodeId);
  t.equal(net.peers[0]!.is_outbound, true);
  t.equal(net.peers[0]!.remote_ip, '127.0.0.1');
  const inbound = (await consensus(validator, '/net_info')).result as { peers: Array<{ node_info: { id: string }; is_outbound: boolean }> };
  t.same(inbound.peers.map((p) => p.node_info.id).sort(), [plain.nodeId, split.nodeId].sort());
  t.ok(inbound.peers.every((p) => !p.is_outbound));

  // A wallet uses a follower only.
  const chain = chainOf(plain.http, plain.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 });
  const [funder] = devAccounts(1);
  const account = privateKeyToAccount(funder!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000c0ffee02' as const;
  const transfer = await wallet.sendTransaction({ to: recipient, value: parseEther('2') });
  const receipt = await client.waitForTransactionReceipt({ hash: transfer, pollingInterval: 100, timeout: 30_000 });
  t.equal(receipt.status, 'success', 'the transfer sent to a follower landed in a block');
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: ['Strata Token', 'STR', 1_000_000n] });
  const deployed = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 100, timeout: 30_000 });
  const tokenAddress = deployed.contractAddress!;
  const tokenTransfer = await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [recipient, 250n] });
  const tokenReceipt = await client.waitForTransactionReceipt({ hash: tokenTransfer, pollingInterval: 100, timeout: 30_000 });
  t.equal(tokenReceipt.logs.length, 1);

  // Everyone reaches the same height.
  const top = await heightOf(validator);
  for (const node of nodes) await waitUntil(`node at ${top}`, async () => (await heightOf(node)) >= top);
  for (const follower of [plain, split]) {
    await waitUntil('catching_up false', async () => ((await consensus(follower, '/status')).result.sync_info as { catching_up: boolean }).catching_up === false);
  }
  t.pass('caught-up followers are not catching up');
  const lag = await consensus(plain, '/lag_status');
  t.equal(lag.status, 200);
  t.ok(Number((lag.result as { max_peer_height: string }).max_peer_height) >= top);

  // Identical answers at every height.
  const hashes = [transfer, deployHash, tokenTransfer];
  const balanceOf = encodeFunctionData({ abi: token.abi, functionName: 'balanceOf', args: [recipient] });
  let compared = 0;
  for (let h = 1; h <= top; h++) {
    const tag = `0x${h.toString(16)}`;
    const queries: Array<[string, unknown[]]> = [
      ['eth_getBalance', [recipient, tag]],
      ['eth_getBalance', [account.address, tag]],
      ['eth_getStorageAt', [tokenAddress, '0x0', tag]],
      ['eth_getCode', [tokenAddress, tag]],
      ['eth_call', [{ to: tokenAddress, data: balanceOf }, tag]],
      ['eth_getBlockByNumber', [tag, true]],
    ];
    for (const [method, params] of queries) {
      const answers = await Promise.all(nodes.map((n) => rpcResult(n.http, method, params)));
      t.same(answers[1], answers[0], `${method} at ${h}: follower = validator`);
      t.same(answers[2], answers[0], `${method} at ${h}: split follower = validator`);
      compared++;
    }
  }
  for (const hash of hashes) {
    for (const [method, params] of [
      ['eth_getTransactionReceipt', [hash]],
      ['eth_getTransactionByHash', [hash]],
      ['debug_traceTransaction', [hash, { tracer: 'callTracer' }]],
    ] as Array<[string, unknown[]]>) {
      const answers = await Promise.all(nodes.map((n) => rpcResult(n.http, method, params)));
      t.ok(answers[0], `${method} answered`);
      t.same(answers[1], answers[0], `${method} of ${hash}: follower = validator`);
      t.same(answers[2], answers[0], `${method} of ${hash}: split follower = validator`);
    }
  }
  t.ok(compared > 6 * 3);
});
