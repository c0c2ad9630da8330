/**
 * debug_traceCall, debug_traceStateAccess and the trace limits on a real `stratad`: calls
 * traced with state, block and txIndex overrides under every tracer; the store-level read
 * footprint of an ETH transfer and of an ERC-20 transfer; per-transaction timeouts that fail
 * with geth's error while the node keeps serving; the cap on concurrent traces; and pruned
 * state reported with the earliest height kept.
 */
import t, { type Test } from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  http,
  keccak256,
  parseEther,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { defaultAppConfig, loadConfig, renderAppToml } from '../../src/config/index.js';
import { TOKEN } from '../fixtures/chain.js';
import { initHome, startNode, type TestHome } from './fixtures/node-process.js';
import { chainOf, rawRpc } from './fixtures/rpc-client.js';

/** Runtime code: JUMPDEST PUSH1 0 JUMP — loops until the gas runs out. */
const LOOP_CODE = '0x5b600056';
/** Init code returning LOOP_CODE: PUSH4 code, PUSH1 0, MSTORE, PUSH1 4, PUSH1 28, RETURN. */
const LOOP_INIT = '0x635b6000566000526004601cf3';
/** A JavaScript tracer counting the opcodes it sees. */
const OPCODE_COUNTER = '{count: 0, step: function() { this.count++; }, fault: function() {}, result: function() { return this.count; }}';
/** Runtime code returning one 32-byte word computed by `op` (e.g. 43 = NUMBER). */
function returning(op: string): Hex {
  return `0x${op}60005260206000f3`;
}

type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };

async function rpc(port: number, method: string, params: unknown[]): Promise<RpcAnswer> {
  return (await rawRpc(port, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).json as RpcAnswer;
}

/** Waits until the node has committed block `height` (traces need a stored block). */
async function untilBlock(port: number, height: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const latest = (await rpc(port, 'eth_blockNumber', [])).result;
    if (typeof latest === 'string' && Number(latest) >= height) return;
    await sleep(50);
  }
  throw new Error(`block ${height} was not produced`);
}

function word(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}`;
}

function noPrefix(text: string): string {
  return text.replace(/^0x/, '').toLowerCase();
}

/** Storage slot of `balanceOf[holder]` in test/fixtures/Token.sol (the mapping is slot 3). */
function balanceSlot(holder: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 3n]));
}

/** A node with a funded account, the ERC-20 deployed, an ETH transfer and a token transfer mined. */
async function seededNode(t: Test) {
  const home = await initHome(t);
  await startNode(t, home);
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 }) as PublicClient;
  const [funder] = devAccounts(1);
  const account = privateKeyToAccount(funder!.privateKey as Hex);
  const wallet = createWalletClient({ account, chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000c0ffee02' as const;

  const transferHash = await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') });
  const transfer = await client.waitForTransactionReceipt({ hash: transferHash, pollingInterval: 100 });
  const deployHash = await wallet.deployContract({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['Strata Token', 'STR', 1_000_000n] });
  const token = (await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 100 })).contractAddress!;
  const tokenTransferHash = await wallet.writeContract({ address: token, abi: TOKEN.abi, functionName: 'transfer', args: [recipient, 250n] });
  const tokenTransfer = await client.waitForTransactionReceipt({ hash: tokenTransferHash, pollingInterval: 100 });
  return { home, client, wallet, sender: account.address.toLowerCase() as Hex, recipient, token: token.toLowerCase() as Hex, transfer, tokenTransfer };
}

function balanceOfCall(token: Hex, holder: Hex): { to: Hex; data: Hex } {
  return { to: token, data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'balanceOf', args: [holder] }) };
}

t.test('debug_traceCall: overrides, txIndex, every tracer, errors', async (t) => {
  const { home, sender, recipient, token, tokenTransfer } = await seededNode(t);
  const callTracer = { tracer: 'callTracer' };
  const output = async (call: object, block: unknown, config: object): Promise<bigint> => {
    const answer = await rpc(home.http, 'debug_traceCall', [call, block, config]);
    t.notOk(answer.error, JSON.stringify(answer.error));
    return BigInt((answer.result as { output: Hex }).output);
  };

  t.equal(await output(balanceOfCall(token, recipient), 'latest', callTracer), 250n, 'the call sees the latest state');

  const slot = balanceSlot(recipient);
  t.equal(
    await output(balanceOfCall(token, recipient), 'latest', { ...callTracer, stateOverrides: { [token]: { stateDiff: { [slot]: word(777n) } } } }),
    777n,
    'stateDiff replaces one slot',
  );
  t.equal(
    await output(balanceOfCall(token, sender), 'latest', { ...callTracer, stateOverrides: { [token]: { state: { [slot]: word(5n) } } } }),
    0n,
    'state replaces the whole storage (the sender balance is gone)',
  );
  const probe = '0x00000000000000000000000000000000000be7a1' as const;
  t.equal(await output({ to: probe }, 'latest', { ...callTracer, stateOverrides: { [probe]: { code: returning('602a') } } }), 42n, 'code override');
  const rich = '0x000000000000000000000000000000000000f00d' as const;
  t.equal(
    await output({ from: rich, to: probe }, 'latest', { ...callTracer, stateOverrides: { [probe]: { code: returning('3331') }, [rich]: { balance: '0x1234', nonce: '0x7' } } }),
    0x1234n,
    'balance override seen by BALANCE(CALLER)',
  );

  const minedAt = Number(tokenTransfer.blockNumber);
  const at = `0x${minedAt.toString(16)}`;
  const numberCode = { [probe]: { code: returning('43') } };
  t.equal(await output({ to: probe }, at, { ...callTracer, stateOverrides: numberCode }), BigInt(minedAt), 'NUMBER is the traced block');
  t.equal(await output({ to: probe }, at, { ...callTracer, stateOverrides: numberCode, blockOverrides: { number: '0x3039' } }), 12345n, 'blockOverrides.number');
  t.equal(await output({ to: probe }, at, { ...callTracer, stateOverrides: { [probe]: { code: returning('42') } }, blockOverrides: { time: '0x499602d2' } }), 1234567890n, 'blockOverrides.time');
  t.equal(
    await output({ to: probe }, at, { ...callTracer, stateOverrides: { [probe]: { code: returning('41') } }, blockOverrides: { feeRecipient: rich } }),
    BigInt(rich),
    'blockOverrides.feeRecipient',
  );
  t.equal(
    await output({ to: probe }, at, { ...callTracer, stateOverrides: { [probe]: { code: returning('44') } }, blockOverrides: { prevRandao: word(99n) } }),
    99n,
    'blockOverrides.prevRandao',
  );
  t.equal(
    await output({ from: sender, to: probe, gas: '0x186a0', gasPrice: '0x3b9aca00' }, at, { ...callTracer, stateOverrides: { [probe]: { code: returning('48') } }, blockOverrides: { baseFeePerGas: '0x7' } }),
    7n,
    'blockOverrides.baseFeePerGas (a call paying fees sees it)',
  );

  // The token transfer is the only transaction of its block: before it the recipient had none.
  t.equal(await output(balanceOfCall(token, recipient), at, callTracer), 250n, 'after the block');
  t.equal(await output(balanceOfCall(token, recipient), at, { ...callTracer, txIndex: '0x0' }), 0n, 'txIndex 0: before the transfer');
  const blockHash = tokenTransfer.blockHash;
  t.equal(await output(balanceOfCall(token, recipient), { blockHash }, { ...callTracer, txIndex: '0x0' }), 0n, 'the block named by hash');
  const outOfRange = await rpc(home.http, 'debug_traceCall', [balanceOfCall(token, recipient), at, { txIndex: '0x5' }]);
  t.match(outOfRange.error, { code: -32000, message: `transaction index 5 out of range for block ${blockHash}` });

  // Every tracer serves traceCall; the struct logger is the default.
  const transferCall = { from: sender, to: token, data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [recipient, 1n] }) };
  const traced = async (config: object) => {
    const answer = await rpc(home.http, 'debug_traceCall', [transferCall, 'latest', config]);
    t.notOk(answer.error, JSON.stringify(answer.error));
    return answer.result as Record<string, unknown>;
  };
  const struct = await traced({});
  t.equal(struct.failed, false);
  t.ok((struct.structLogs as Array<{ op: string }>).some((l) => l.op === 'SSTORE'), 'struct logs of the transfer');
  t.match(await traced({ tracer: 'opcodeTracer' }), { failed: false, structLogs: Array });
  t.match(await traced({ tracer: 'callTracer', tracerConfig: { withLog: true } }), { type: 'CALL', from: sender, to: token, logs: [{ address: token }] });
  t.match(await traced({ tracer: 'flatCallTracer' }), [{ type: 'call', action: { from: sender, to: token } }]);
  t.match(await traced({ tracer: 'prestateTracer' }), { [token]: { code: /^0x60/ } });
  t.same(await traced({ tracer: '4byteTracer' }), { '0xa9059cbb-64': 1 });
  t.same(await traced({ tracer: 'noopTracer' }), {});
  t.match(await traced({ tracer: 'muxTracer', tracerConfig: { callTracer: {}, '4byteTracer': {} } }), { '4byteTracer': { '0xa9059cbb-64': 1 }, callTracer: { type: 'CALL' } });
  const counted = await rpc(home.http, 'debug_traceCall', [{ to: probe }, 'latest', { tracer: OPCODE_COUNTER, stateOverrides: { [probe]: { code: returning('602a') } } }]);
  t.equal(counted.result, 6, 'a JavaScript tracer counts PUSH1 PUSH1 MSTORE PUSH1 PUSH1 RETURN');

  const reverting = await rpc(home.http, 'debug_traceCall', [
    { from: recipient, to: token, data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [sender, 10n ** 30n] }) },
    'latest',
    callTracer,
  ]);
  t.match(reverting.result, { error: 'execution reverted', revertReason: 'Token: insufficient balance' }, 'a revert is a result, not an RPC error');

  t.match(await rpc(home.http, 'debug_traceCall', [{ to: probe }, 'pending', {}]), { error: { code: -32000, message: 'tracing on top of pending is not supported' } });
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: probe }, '0xffffff', {}]), { error: { code: -32000, message: 'block #16777215 not found' } });
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: probe }, { blockHash: `0x${'ab'.repeat(32)}` }, {}]), { error: { code: -32000, message: `block 0x${'ab'.repeat(32)} not found` } });
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: probe }, 'latest', { timeout: 'soon' }]), { error: { code: -32000, message: 'time: invalid duration "soon"' } });
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: probe }, 'latest', { txIndex: 1 }]), { error: { code: -32602 } });
});

t.test('debug_traceStateAccess: the store reads of an ETH and an ERC-20 transfer', async (t) => {
  const { home, client, sender, recipient, token, transfer, tokenTransfer } = await seededNode(t);
  type Access = {
    app: { modules: Record<string, { reads: Record<string, string>; has: string[] }> };
    tendermint: { traces: Array<{ endpoint: string; arguments: string[]; response: unknown }> };
    receipt: { traces: Array<Record<string, unknown>> };
  };
  const access = async (hash: Hex): Promise<Access> => {
    const answer = await rpc(home.http, 'debug_traceStateAccess', [hash]);
    t.notOk(answer.error, JSON.stringify(answer.error));
    return answer.result as Access;
  };

  const eth = await access(transfer.transactionHash);
  const before = transfer.blockNumber - 1n;
  const bank = eth.app.modules.bank!;
  t.equal(bank.reads[noPrefix(sender)], noPrefix(word(await client.getBalance({ address: sender, blockNumber: before }))), 'the sender balance before the transfer');
  t.equal(bank.reads[noPrefix(recipient)], '', 'the recipient had no balance');
  t.same(bank.has, []);
  const evm = eth.app.modules.evm!;
  t.ok(`0a${noPrefix(sender)}` in evm.reads, 'the sender nonce was read');
  t.ok(`08${noPrefix(recipient)}` in evm.reads, "the recipient's code hash was read");
  for (const [key, value] of Object.entries({ ...bank.reads, ...evm.reads })) {
    t.match(key, /^[0-9a-f]+$/, 'keys are lower-case hex without 0x');
    t.match(value, /^([0-9a-f]{2})*$/, 'values are lower-case hex without 0x');
  }
  t.same(eth.tendermint.traces.map((l) => l.endpoint), ['Tx', 'Block']);
  t.same(eth.tendermint.traces[0]!.arguments, [transfer.transactionHash]);
  t.same(eth.tendermint.traces[1]!.arguments, [String(transfer.blockNumber)]);
  t.match(eth.receipt.traces, [
    {
      blockNumber: `0x${transfer.blockNumber.toString(16)}`,
      from: sender,
      to: recipient,
      gasUsed: '0x5208',
      status: '0x1',
      type: '0x2',
      transactionHash: transfer.transactionHash,
      transactionIndex: `0x${transfer.transactionIndex.toString(16)}`,
      contractAddress: null,
    },
  ]);

  const erc20 = await access(tokenTransfer.transactionHash);
  const reads = erc20.app.modules.evm!.reads;
  const storage = (holder: Hex) => `03${noPrefix(token)}${noPrefix(balanceSlot(holder))}`;
  const atBlock = tokenTransfer.blockNumber - 1n;
  const senderTokens = await client.getStorageAt({ address: token, slot: balanceSlot(sender), blockNumber: atBlock });
  t.equal(reads[storage(sender)], noPrefix(senderTokens!), "the sender's token balance slot, as stored before");
  t.equal(reads[storage(recipient)], '', "the recipient's slot was empty");
  t.equal(reads[`07${noPrefix(token)}`], noPrefix((await client.getCode({ address: token }))!), 'the token code');
  t.notOk(Object.keys(reads).some((k) => k.startsWith('03') && !k.startsWith(`03${noPrefix(token)}`)), 'no storage of other contracts');
  t.equal(erc20.receipt.traces[0]!.to, token);

  t.match(await rpc(home.http, 'debug_traceStateAccess', [`0x${'11'.repeat(32)}`]), { error: { code: -32000, message: 'transaction not found' } });
});

t.test('trace timeouts fail with geth error and the node keeps serving', async (t) => {
  const home: TestHome = await initHome(t);
  await startNode(t, home);
  await untilBlock(home.http, 1);
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 });
  const [funder] = devAccounts(1);
  const wallet = createWalletClient({ account: privateKeyToAccount(funder!.privateKey as Hex), chain, transport: http() });
  const looper = '0x00000000000000000000000000000000000100ff' as const;
  const loopCall = [{ to: looper }, 'latest'] as const;
  const loopOverride = { [looper]: { code: LOOP_CODE } };

  // A JavaScript tracer's sandbox is set up within its deadline, so it gets enough time for that.
  const timeouts: Array<[string | undefined, string]> = [[undefined, '1ms'], ['callTracer', '1ms'], ['prestateTracer', '1ms'], ['noopTracer', '1ms'], [OPCODE_COUNTER, '500ms']];
  for (const [tracer, timeout] of timeouts) {
    // Without the deadline the loop would run to the end of the 50M gas cap: an out-of-gas result, not an error.
    const answer = await rpc(home.http, 'debug_traceCall', [...loopCall, { tracer, timeout, stateOverrides: loopOverride }]);
    t.match(answer.error, { code: -32000, message: /^execution timeout/ }, `${tracer ?? 'struct logger'}: execution timeout`);
    t.match(await rpc(home.http, 'eth_blockNumber', []), { result: /^0x/ }, 'the node answers afterwards');
  }

  // A mined transaction that loops until its gas runs out.
  const deployed = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ data: LOOP_INIT }), pollingInterval: 100 });
  const loopTx = await wallet.sendTransaction({ to: deployed.contractAddress!, gas: 400_000n });
  const mined = await client.waitForTransactionReceipt({ hash: loopTx, pollingInterval: 100 });
  t.equal(mined.status, 'reverted', 'the loop ran out of gas');
  t.match(await rpc(home.http, 'debug_traceTransaction', [loopTx, { timeout: '1ms' }]), { error: { code: -32000, message: 'execution timeout' } });
  t.match(
    await rpc(home.http, 'debug_traceBlockByNumber', [`0x${mined.blockNumber.toString(16)}`, { tracer: 'callTracer', timeout: '1ms' }]),
    { error: { code: -32000, message: 'execution timeout' } },
    'a block trace fails as a whole',
  );
  t.match(await rpc(home.http, 'debug_traceTransaction', [loopTx, { tracer: 'callTracer' }]), { result: { error: 'out of gas' } }, 'within the default 5 s it completes');

  // While long traces run, other requests are still answered.
  let longDone = false;
  const long = rpc(home.http, 'debug_traceCall', [...loopCall, { tracer: 'noopTracer', timeout: '2s', stateOverrides: loopOverride }]).finally(() => {
    longDone = true;
  });
  await sleep(300);
  t.match(await rpc(home.http, 'eth_blockNumber', []), { result: /^0x/ });
  t.notOk(longDone, 'eth_blockNumber is answered while the trace is still running');
  t.match(await long, { error: { message: 'execution timeout' } });
});

t.test('traces beyond the concurrency cap are refused at once', async (t) => {
  const home = await initHome(t);
  await startNode(t, home);
  await untilBlock(home.http, 1);
  const looper = '0x00000000000000000000000000000000000100ff' as const;
  const request = () => rpc(home.http, 'debug_traceCall', [{ to: looper }, 'latest', { tracer: 'noopTracer', timeout: '2s', stateOverrides: { [looper]: { code: LOOP_CODE } } }]);
  const cap = defaultAppConfig().evm.maxConcurrentTraces;
  const answers = await Promise.all(Array.from({ length: cap + 3 }, request));
  const busy = answers.filter((a) => a.error?.code === -32005);
  const timedOut = answers.filter((a) => a.error?.message === 'execution timeout');
  t.equal(busy.length, 3, 'the three over the cap are refused');
  t.match(busy[0]!.error!.message, `trace request rejected due to concurrency limit: server busy (${cap} traces running, max-concurrent-traces = ${cap})`);
  t.equal(busy.length + timedOut.length, answers.length, 'the admitted ones ran to their deadline');
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: looper }, 'latest', { tracer: 'noopTracer', stateOverrides: { [looper]: { code: '0x00' } } }]), { result: {} }, 'slots are freed');
});

t.test('pruned state is an error naming the earliest height kept', async (t) => {
  const home = await initHome(t, 150);
  const config = await loadConfig(home.home);
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, stateStore: { ...config.app.stateStore, keepRecent: 2, pruneInterval: 1 } }));
  await startNode(t, home);
  await untilBlock(home.http, 3);
  let answer: RpcAnswer = {};
  for (let i = 0; i < 100; i++) {
    answer = await rpc(home.http, 'debug_traceCall', [{ to: `0x${'00'.repeat(20)}` }, '0x3', {}]);
    if (answer.error) break;
    await sleep(200);
  }
  t.match(answer.error, { code: -32000, message: /^historical state is not available: the call needs the state after block 3, and the earliest retained is (\d+)$/ });
  const earliest = Number(/earliest retained is (\d+)/.exec(answer.error!.message)![1]);
  t.ok(earliest > 3, `earliest kept ${earliest}`);
  t.match(await rpc(home.http, 'debug_traceBlockByNumber', ['0x3', {}]), { error: { code: -32000, message: /^historical state is not available: block 3 needs the state of block 2, and the earliest retained is \d+$/ } });
  const latest = BigInt((await rpc(home.http, 'eth_blockNumber', [])).result as string);
  t.match(await rpc(home.http, 'debug_traceCall', [{ to: `0x${'00'.repeat(20)}` }, `0x${latest.toString(16)}`, {}]), { result: { failed: false } }, 'recent state still traces');
});

t.test('a node with evm-ss-split traces blocks from the EVM SS', async (t) => {
  const home = await initHome(t, 200);
  const config = await loadConfig(home.home);
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, stateStore: { ...config.app.stateStore, evmSsSplit: true } }));
  await startNode(t, home);
  t.ok(existsSync(join(home.home, 'data', 'evm_ss')), 'the EVM SS is in use');
  const chain = chainOf(home.http, home.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 100 }) as PublicClient;
  const [funder] = devAccounts(1);
  const wallet = createWalletClient({ account: privateKeyToAccount(funder!.privateKey as Hex), chain, transport: http() });
  const recipient = '0x00000000000000000000000000000000c0ffee03' as const;
  const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: recipient, value: parseEther('2') }), pollingInterval: 100 });

  const latest = await rpc(home.http, 'debug_traceBlockByNumber', ['latest', {}]);
  t.ok(Array.isArray(latest.result), 'debug_traceBlockByNumber("latest", {}) answers with a result');
  // Let later blocks commit so the transfer's parent state is served by the EVM SS, not the SC.
  await untilBlock(home.http, Number(receipt.blockNumber) + 2);
  const traced = await rpc(home.http, 'debug_traceBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, { tracer: 'callTracer' }]);
  t.match(traced.result, [{ txHash: receipt.transactionHash, result: { type: 'CALL', from: funder!.address.toLowerCase(), to: recipient, value: '0x1bc16d674ec80000', gasUsed: '0x5208' } }]);
  const prestate = await rpc(home.http, 'debug_traceTransaction', [receipt.transactionHash, { tracer: 'prestateTracer' }]);
  const sender = (prestate.result as Record<string, { balance?: string }>)[funder!.address.toLowerCase()];
  t.equal(BigInt(sender?.balance ?? '0x0'), 10_000n * 10n ** 18n, 'the sender\'s balance before the transfer, read from the EVM SS');
});

t.test('a JavaScript tracer reading state it did not preload gets the answer (the trace is run again)', async (t) => {
  const home = await initHome(t, 200);
  await startNode(t, home);
  await untilBlock(home.http, 2);
  const probe = '0x00000000000000000000000000000000c0ffee09';
  // db.getBalance of an address no opcode names: not loaded before the first step.
  const tracer = `{ seen: null, step: function(log, db) { if (this.seen === null) this.seen = db.getBalance(toAddress('${probe}')).toString(); }, fault: function() {}, result: function() { return this.seen; } }`;
  const answer = await rpc(home.http, 'debug_traceCall', [{ to: `0x${'00'.repeat(19)}aa`, data: '0x' }, 'latest', { tracer, stateOverrides: { [probe]: { balance: '0x4d2' }, [`0x${'00'.repeat(19)}aa`]: { code: '0x600160005500' } } }]);
  t.same(answer, { jsonrpc: '2.0', id: 1, result: '1234' }, 'the balance set by the override');
});
