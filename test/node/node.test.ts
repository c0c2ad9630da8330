/**
 * A real `stratad` on loopback driven by real clients: viem over HTTP and WebSocket and
 * Foundry's `cast`. Funds move, an ERC-20 (compiled with solc) is deployed and used, balances
 * are read at old blocks, receipts and logs come back, newHeads arrive over WebSocket; bad
 * input gets JSON-RPC errors while the node keeps serving; a second process cannot take the
 * home; a restart loses nothing and block production resumes.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseEther,
  webSocket,
  type Abi,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { ROOT, initHome, startNode, stratad } from './fixtures/node-process.js';
import { chainOf, rawRpc } from './fixtures/rpc-client.js';

const token = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'token.json'), 'utf8')) as { abi: Abi; bytecode: Hex };

function cast(args: string[]): string {
  const r = spawnSync('npx', ['cast', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`cast ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

t.test('a node serves viem and cast, survives bad input and a restart', async (t) => {
  const home = await initHome(t);
  let node = await startNode(t, home);
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 });
  const [funder] = devAccounts(1);
  const account = privateKeyToAccount(funder!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });

  t.equal(await client.getChainId(), 713715);
  const recipient = '0x00000000000000000000000000000000c0ffee01' as const;
  const before = await client.getBlockNumber();

  // A transfer, its receipt, and balances now and at an old block.
  const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  t.equal(receipt.status, 'success');
  t.equal(receipt.gasUsed, 21000n);
  t.equal(await client.getBalance({ address: recipient }), parseEther('1.5'));
  t.equal(await client.getBalance({ address: recipient, blockNumber: before }), 0n, 'the old block shows the old balance');
  const tx = await client.getTransaction({ hash });
  t.equal(tx.type, 'eip1559');
  t.equal(tx.from.toLowerCase(), account.address.toLowerCase());
  t.equal(tx.blockNumber, receipt.blockNumber);

  // An ERC-20: deploy, transfer, read, logs.
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: ['Strata Token', 'STR', 1_000_000n] });
  const deployed = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 100 });
  t.equal(deployed.status, 'success');
  const tokenAddress = deployed.contractAddress!;
  t.ok(tokenAddress, 'the receipt names the contract');
  t.ok((await client.getCode({ address: tokenAddress }))!.length > 2, 'the code is stored');
  const transferHash = await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [recipient, 250n] });
  const transferReceipt = await client.waitForTransactionReceipt({ hash: transferHash, pollingInterval: 100 });
  t.equal(transferReceipt.logs.length, 1, 'one Transfer log');
  t.equal(await client.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [recipient] }), 250n);
  const logs = await client.getContractEvents({ address: tokenAddress, abi: token.abi, eventName: 'Transfer', fromBlock: 0n });
  t.ok(logs.some((l) => l.transactionHash === transferHash), 'eth_getLogs finds the transfer');
  await t.rejects(
    client.simulateContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [recipient, 10n ** 30n], account }),
    /revert/i,
    'a failing call reports the revert',
  );

  // Tracing on the real node: the block is re-executed on its parent's state from the SS.
  const callTrace = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [transferHash, { tracer: 'callTracer' }] }))).json as { result: { type: string; to: string; from: string; gasUsed: string; output: string } };
  t.match(callTrace.result, { type: 'CALL', to: tokenAddress.toLowerCase(), from: account.address.toLowerCase() }, 'callTracer frame of the token transfer');
  t.equal(callTrace.result.output, `0x${'0'.repeat(63)}1`, 'transfer returned true');
  const structTrace = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [transferHash, {}] }))).json as { result: { gas: number; failed: boolean; structLogs: Array<{ op: string; depth: number }> } };
  t.equal(structTrace.result.gas, Number(transferReceipt.gasUsed), 'struct logger gas is the receipt gas');
  t.equal(structTrace.result.failed, false);
  t.ok(structTrace.result.structLogs.some((l) => l.op === 'SSTORE'), 'the struct logger saw the balance writes');
  const blockTrace = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceBlockByNumber', params: [`0x${transferReceipt.blockNumber.toString(16)}`, { tracer: 'callTracer' }] }))).json as { result: Array<{ txHash: string }> };
  t.ok(blockTrace.result.some((e) => e.txHash === transferHash), 'debug_traceBlockByNumber lists the transaction');
  t.ok(Array.isArray(((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["latest",{}]}')).json as { result: unknown }).result), 'the operator check: traceBlockByNumber latest');
  t.match((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"debug_traceTransaction","params":["0x' + '11'.repeat(32) + '",{"tracer":"callTracer"}]}')).json, { error: { message: 'transaction not found' } });
  t.match((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByNumber","params":["0x0",{}]}')).json, { error: { message: 'genesis is not traceable' } });

  // newHeads over WebSocket.
  const wsClient = createPublicClient({ chain, transport: webSocket() });
  const heads = await new Promise<bigint[]>((resolve, reject) => {
    const seen: bigint[] = [];
    const timer = setTimeout(() => reject(new Error('no newHeads within 10 s')), 10_000);
    const unwatch = wsClient.watchBlocks({
      onBlock: (block) => {
        seen.push(block.number);
        if (seen.length === 2) {
          clearTimeout(timer);
          unwatch();
          resolve(seen);
        }
      },
      onError: reject,
    });
  });
  t.ok(heads[1]! > heads[0]!, 'heads arrive in order');
  await wsClient.transport.getRpcClient().then((c) => c.close());

  // Foundry's cast.
  const rpcUrl = `http://127.0.0.1:${home.http}`;
  t.ok(Number(cast(['block-number', '--rpc-url', rpcUrl])) >= Number(transferReceipt.blockNumber));
  t.equal(cast(['balance', '--rpc-url', rpcUrl, recipient]), parseEther('1.5').toString());
  t.equal(cast(['chain-id', '--rpc-url', rpcUrl]), '713715');
  // cast runs synchronously: while it ran, the server may have closed this process's idle
  // keep-alive sockets, and those closes are only seen once the event loop turns again.
  await new Promise((resolve) => setTimeout(resolve, 50));

  // Bad input: errors, and the node keeps serving.
  const malformed = await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":');
  t.match(malformed.json, { error: { code: -32700 } });
  t.match((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"eth_nope"}')).json, { error: { code: -32601 } });
  t.match((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[42]}')).json, { error: { code: -32602 } });
  t.match((await rawRpc(home.http, '{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0xdeadbeef"]}')).json, { error: {} });
  const underpriced = await wallet.signTransaction({ to: recipient, value: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, gas: 21000n, nonce: await client.getTransactionCount({ address: account.address }) });
  const refused = (await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [underpriced] }))).json;
  t.match(refused, { error: { message: /fee|base fee|underpriced/i } }, 'an underpriced tx is refused');
  const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const gapped = await wallet.signTransaction({ to: recipient, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, nonce: nonce + 5 });
  t.match((await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [gapped] }))).json, { error: { message: /nonce too high/ } }, 'a nonce gap is refused');
  const good = await wallet.signTransaction({ to: recipient, value: 1n, gas: 21000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, nonce });
  const forged = `${good.slice(0, -6)}${good.slice(-6, -4) === 'ff' ? '00' : 'ff'}${good.slice(-4)}` as Hex;
  t.match((await rawRpc(home.http, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [forged] }))).json, { error: {} }, 'a damaged signature is refused');
  const huge = await rawRpc(home.http, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["${'x'.repeat(6 * 1024 * 1024)}"]}`);
  t.equal(huge.status, 413);
  const bigBatch = JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })));
  // geth answers an oversized batch with a one-element array holding the error.
  t.match((await rawRpc(home.http, bigBatch)).json, [{ error: { message: /batch too large/ } }]);
  t.equal(await client.getChainId(), 713715, 'still serving');

  // The home is held: a second process is turned away with the operator-facing message.
  const second = stratad(['start', '--home', home.home]);
  t.equal(second.status, 1);
  t.match(second.stderr, /failed to initialize database: resource temporarily unavailable/);

  // /status and stratad status.
  const status = (await (await fetch(`http://127.0.0.1:${home.rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
  t.ok(Number(status.result.sync_info.latest_block_height) >= Number(transferReceipt.blockNumber));
  const statusCli = stratad(['status', '--home', home.home]);
  t.equal(statusCli.status, 0, statusCli.stderr);
  t.match(statusCli.stdout, /"latest_app_hash"/);

  // Restart: nothing committed is lost and production resumes.
  const heightBefore = await client.getBlockNumber();
  t.equal(await node.stop(), 0, 'a clean shutdown on SIGTERM');
  node = await startNode(t, home);
  t.ok((await client.getBlockNumber()) >= heightBefore, 'the chain is still there');
  t.equal(await client.getBalance({ address: recipient }), parseEther('1.5'));
  t.equal(await client.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [recipient] }), 250n);
  const again = await wallet.sendTransaction({ to: recipient, value: parseEther('0.5') });
  const againReceipt = await client.waitForTransactionReceipt({ hash: again, pollingInterval: 100 });
  t.ok(againReceipt.blockNumber > heightBefore, 'new blocks after the restart');
  t.equal(await client.getBalance({ address: recipient }), parseEther('2'));
  t.equal(await node.stop(), 0);
});
