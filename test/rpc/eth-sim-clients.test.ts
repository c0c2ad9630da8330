/**
 * eth_simulateV1 and eth_createAccessList on a real `stratad` through ethers v6 and web3.js 4,
 * which must give what the raw JSON-RPC answer (and viem) gives; BLOCKHASH inside simulated
 * blocks; and geth's default fees in eth_createAccessList, with Anvil as the reference.
 *
 * Anvil's known departure from geth, recorded rather than compared: its eth_createAccessList
 * fills no default fees, so a sender without funds still gets a list there, where geth (and
 * this node) refuse the message for insufficient funds at the default fee cap.
 */
import t from 'tap';
import { JsonRpcProvider, Wallet, getAddress } from 'ethers';
import { createPublicClient, http } from 'viem';
import { Web3 } from 'web3';
import { launchAnvil } from '../../bench/node/anvil-process.js';
import { fundOnAnvil } from '../../bench/trace/anvil.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { initHome, startNode } from '../node/fixtures/node-process.js';
import { chainOf, rpcCall as call, type RpcAnswer, rpcResultOf as result } from '../node/fixtures/rpc-client.js';

const CHAIN_ID = 713715;
type Json = Record<string, unknown>;
type Answer = RpcAnswer;

const addr = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
const word = (n: bigint): string => n.toString(16).padStart(64, '0');
/** PUSH1 0, CALLDATALOAD, BLOCKHASH, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: returns BLOCKHASH(first word of the input). */
const BLOCKHASH_READER = '0x6000354060005260206000f3';
/** SLOAD slot 1, then STOP: a message that touches one slot. */
const SLOT_READER = '0x60015450';
/** Init code that deploys `runtime` (0x-prefixed). */
const initOf = (runtime: string): string => {
  const code = runtime.slice(2);
  const n = (code.length / 2).toString(16).padStart(2, '0');
  return `0x60${n}600c60003960${n}6000f3${code}`;
};

t.test('eth_simulateV1 and eth_createAccessList through ethers v6 and web3.js 4', async (t) => {
  const home = await initHome(t, 400);
  await startNode(t, home);
  const anvil = await launchAnvil(['--chain-id', String(CHAIN_ID), '--hardfork', 'prague', '--gas-limit', '30000000']);
  t.teardown(() => anvil.stop());
  const [funder] = devAccounts(1);
  const from = funder!.address.toLowerCase();
  await fundOnAnvil(anvil.port, [from], 10n ** 24n);
  const ethers = new JsonRpcProvider(`http://127.0.0.1:${home.http}`, CHAIN_ID, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
  t.teardown(() => ethers.destroy());
  const web3 = new Web3(`http://127.0.0.1:${home.http}`);
  const viem = createPublicClient({ chain: chainOf(home.http, home.ws), transport: http() });

  // Wait for a few blocks so BLOCKHASH has ancestors to read.
  const deadline = Date.now() + 60_000;
  while (BigInt(await result<string>(home.http, 'eth_blockNumber')) < 3n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

  t.test('BLOCKHASH in a simulated block sees the earlier simulated blocks and the chain below them', async (t) => {
    const head = BigInt(await result<string>(home.http, 'eth_blockNumber'));
    const at = `0x${head.toString(16)}`;
    const chainHash = (await result<Json>(home.http, 'eth_getBlockByNumber', [at, false]))['hash'];
    const reader = addr(0xb10c);
    const ask = (n: bigint) => ({ from, to: reader, input: `0x${word(n)}` });
    const payload = {
      blockStateCalls: [
        { stateOverrides: { [reader]: { code: BLOCKHASH_READER } }, calls: [ask(head)] },
        { calls: [ask(head + 1n)] },
        // Block head+4 after a gap block at head+3: every earlier simulated block has a hash, and the current one reads zero.
        { blockOverrides: { number: `0x${(head + 4n).toString(16)}` }, calls: [ask(head + 1n), ask(head + 2n), ask(head + 3n), ask(head + 4n), ask(head - 1n)] },
      ],
    };
    const blocks = await result<Json[]>(home.http, 'eth_simulateV1', [payload, at]);
    t.equal(blocks.length, 4, 'three blocks asked for and one gap block');
    const returned = blocks.map((b) => (b['calls'] as Json[]).map((c) => c['returnData']));
    const parentOfBase = (await result<Json>(home.http, 'eth_getBlockByNumber', [`0x${(head - 1n).toString(16)}`, false]))['hash'];
    t.equal(returned[0]![0], chainHash, 'the first simulated block reads the base block\'s hash from the chain');
    t.equal(returned[1]![0], blocks[0]!['hash'], 'the second reads the first simulated block\'s reported hash');
    t.same(
      returned[3],
      [blocks[0]!['hash'], blocks[1]!['hash'], blocks[2]!['hash'], `0x${'00'.repeat(32)}`, parentOfBase],
      'the last reads every earlier simulated block (the gap block too), zero for itself, and the chain below the base',
    );
    t.equal(blocks[1]!['parentHash'], blocks[0]!['hash'], 'the hash BLOCKHASH gives is the one the next block names as parent');
    // The same simulation again: the pooled VM answers BLOCKHASH from the chain again afterwards.
    const plain = await result<string>(home.http, 'eth_call', [{ to: reader, input: `0x${word(head)}` }, at, { [reader]: { code: BLOCKHASH_READER } }]);
    t.equal(plain, `0x${'00'.repeat(32)}`, 'eth_call at the base block cannot see the base block itself');
    const later = await result<string>(home.http, 'eth_call', [{ to: reader, input: `0x${word(head - 1n)}` }, at, { [reader]: { code: BLOCKHASH_READER } }]);
    t.equal(later, parentOfBase, 'and eth_call afterwards still reads the chain\'s hashes');
  });

  t.test('eth_createAccessList fills geth\'s default fees', async (t) => {
    const probe = addr(0xacc1);
    const overrides = { [probe]: { code: SLOT_READER } };
    const poor = Wallet.createRandom().address.toLowerCase();
    const request = { from: poor, to: probe, gas: '0x30000' };
    const head = await result<string>(home.http, 'eth_blockNumber');
    const baseFee = BigInt((await result<Json>(home.http, 'eth_getBlockByNumber', [head, false]))['baseFeePerGas'] as string);
    const tip = BigInt(await result<string>(home.http, 'eth_maxPriorityFeePerGas'));
    const want = 0x30000n * (tip + 2n * baseFee);
    const refused = await call(home.http, 'eth_createAccessList', [request, head, overrides]);
    t.equal(refused.error?.code, -32000, 'a sender without funds for the default fee is refused');
    t.match(
      refused.error?.message,
      new RegExp(`^failed to apply transaction: 0x[0-9a-f]{64} err: insufficient funds for gas \\* price \\+ value: address ${getAddress(poor)} have 0 want ${want}$`),
      'with geth\'s error: the checksummed sender, the gas times the default fee cap (tip + 2 × the block\'s base fee)',
    );
    // Anvil's eth_createAccessList takes no state overrides: it is asked without them.
    const onAnvil = await result<Json>(anvil.port, 'eth_createAccessList', [request, 'latest']);
    t.ok(Array.isArray(onAnvil['accessList']), 'Anvil fills no default fees and answers a list (a known departure)');
    t.same(
      (await call(home.http, 'eth_createAccessList', [{ ...request, gasPrice: '0x0' }, head, overrides])).error,
      { code: -32000, message: 'gasPrice must be non-zero after london fork' },
      'a zero gas price is refused as geth refuses it',
    );
    t.same(
      (await call(home.http, 'eth_createAccessList', [{ ...request, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }, head, overrides])).error,
      { code: -32000, message: 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)' },
      'and a fee cap below the tip',
    );

    // Funded with exactly what the default fee needs, on both chains: the same list and gas.
    const wallet = new Wallet(funder!.privateKey, ethers);
    await (await wallet.sendTransaction({ to: poor, value: want })).wait();
    await fundOnAnvil(anvil.port, [poor], want);
    const atLatest = await result<string>(home.http, 'eth_blockNumber');
    const mine = await result<Json>(home.http, 'eth_createAccessList', [request, atLatest]);
    const theirs = await result<Json>(anvil.port, 'eth_createAccessList', [request, 'latest']);
    t.same(mine, theirs, 'a sender with funds for the default fee gets the list and gas Anvil gives');
    const traced = await result<Json>(home.http, 'eth_createAccessList', [request, atLatest, overrides]);
    t.same(traced['accessList'], [{ address: probe, storageKeys: [`0x${word(1n)}`] }], 'and with the probe\'s code, the probe with its slot');
    const short = await call(home.http, 'eth_createAccessList', [{ ...request, value: '0x1' }, atLatest, overrides]);
    t.match(short.error?.message, /insufficient funds for gas \* price \+ value/, 'one wei more than the balance is refused');
  });

  t.test('ethers v6 and web3.js 4 give what the raw JSON-RPC and viem give', async (t) => {
    // A deployed probe: web3.js and viem pass no state overrides.
    const wallet = new Wallet(funder!.privateKey, ethers);
    const deployed = await (await wallet.sendTransaction({ data: initOf(SLOT_READER) })).wait();
    const probe = deployed!.contractAddress!.toLowerCase();
    const head = await result<string>(home.http, 'eth_blockNumber');
    const request = { from, to: probe };
    const raw = await result<{ accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string }>(home.http, 'eth_createAccessList', [request, head]);
    t.same(raw.accessList, [{ address: probe, storageKeys: [`0x${word(1n)}`] }], 'the raw answer lists the probe and its slot');
    t.same(await ethers.send('eth_createAccessList', [request, head]), raw, 'ethers provider.send: eth_createAccessList');
    const viaWeb3 = await web3.eth.createAccessList({ from, to: probe }, head);
    t.same(
      { accessList: viaWeb3.accessList?.map((e) => ({ address: String(e.address).toLowerCase(), storageKeys: e.storageKeys })), gasUsed: BigInt(viaWeb3.gasUsed as bigint) },
      { accessList: [{ address: probe, storageKeys: [`0x${word(1n)}`] }], gasUsed: BigInt(raw.gasUsed) },
      'web3.eth.createAccessList: the same list and gas',
    );
    const viaViem = await viem.createAccessList({ account: from as `0x${string}`, to: probe as `0x${string}`, data: '0x', blockNumber: BigInt(head) }).catch((error: unknown) => error as Error);
    if (viaViem instanceof Error) t.fail(`viem createAccessList: ${viaViem.message}`);
    else t.same({ accessList: viaViem.accessList.map((e) => ({ address: e.address.toLowerCase(), storageKeys: e.storageKeys })), gasUsed: viaViem.gasUsed }, { accessList: [{ address: probe, storageKeys: [`0x${word(1n)}`] }], gasUsed: BigInt(raw.gasUsed) }, 'viem createAccessList: the same list and gas');

    const reader = addr(0xb10d);
    const payload = {
      traceTransfers: true,
      blockStateCalls: [
        { stateOverrides: { [reader]: { code: BLOCKHASH_READER } }, calls: [{ from, to: addr(0xbeef), value: '0x7' }, { from, to: reader, input: `0x${word(BigInt(head))}` }] },
        { calls: [{ from, to: reader, input: `0x${word(BigInt(head) + 1n)}` }] },
      ],
    };
    const simulated = await result<Json[]>(home.http, 'eth_simulateV1', [payload, head]);
    t.equal(simulated.length, 2, 'the raw answer has two blocks');
    t.same(await ethers.send('eth_simulateV1', [payload, head]), simulated, 'ethers provider.send: eth_simulateV1');
    t.same(await web3.requestManager.send({ method: 'eth_simulateV1', params: [payload, head] }), simulated, 'web3 requestManager.send: eth_simulateV1');
    const viaViemBlocks = await viem.simulateBlocks({
      blockNumber: BigInt(head),
      traceTransfers: true,
      blocks: [
        { stateOverrides: [{ address: reader as `0x${string}`, code: BLOCKHASH_READER as `0x${string}` }], calls: [{ account: from as `0x${string}`, to: addr(0xbeef) as `0x${string}`, value: 7n }, { account: from as `0x${string}`, to: reader as `0x${string}`, data: `0x${word(BigInt(head))}` }] },
        { calls: [{ account: from as `0x${string}`, to: reader as `0x${string}`, data: `0x${word(BigInt(head) + 1n)}` }] },
      ],
    });
    t.same(viaViemBlocks.map((b) => b.hash), simulated.map((b) => b['hash']), 'viem simulateBlocks: the same block hashes');
    t.same(viaViemBlocks.map((b) => b.calls.map((c) => c.data)), simulated.map((b) => (b['calls'] as Json[]).map((c) => c['returnData'])), 'and the same return data');
    t.equal((simulated[1]!['calls'] as Json[])[0]!['returnData'], simulated[0]!['hash'], 'BLOCKHASH of the first simulated block, as all three clients see it');
  });
});
