/**
 * eth_createAccessList, eth_simulateV1 and geth's EVM error texts on a real `stratad`, with
 * Anvil as the reference where it implements the method. Contracts are assembled by hand
 * (deployed, or placed with state overrides) to trigger each failure.
 *
 * Anvil's known departures from geth, recorded rather than compared:
 * - its EVM error texts are revm's (e.g. `OutOfOffset` for RETURNDATACOPY past the return
 *   data), so error texts are checked against geth's core/vm strings, not against Anvil;
 * - eth_simulateV1 gives a call without `gas` the whole block gas limit (geth: the gas left in
 *   the block), so a failed call, which burns all its gas, reports a different gasUsed.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContractFactory, Interface, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import { createPublicClient, encodeFunctionData, http, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { launchAnvil } from '../../bench/node/anvil-process.js';
import { fundOnAnvil } from '../../bench/trace/anvil.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { ROOT, initHome, startNode } from '../node/fixtures/node-process.js';
import { chainOf, rpcCall as call, type RpcAnswer, rpcResultOf as result } from '../node/fixtures/rpc-client.js';

const token = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'token.json'), 'utf8')) as { abi: InterfaceAbi; bytecode: string };
const CHAIN_ID = 713715;
type Json = Record<string, unknown>;
type Answer = RpcAnswer;

// ---- hand-assembled bytecode ----
const hex20 = (n: number): string => n.toString(16).padStart(40, '0');
const addr = (n: number): string => `0x${hex20(n)}`;
/** PUSH1 1, PUSH1 0, PUSH1 0, RETURNDATACOPY, STOP: copies a byte of return data there is none of. */
const RDC_OUT_OF_BOUNDS = '6001600060003e00';
/** CALL(gas, target, 0, 0, inSize, 0, 0), POP, STOP: the caller survives its callee's failure. */
const callOf = (target: string, inSize: number, prelude = ''): string =>
  `${prelude}60006000${`60${inSize.toString(16).padStart(2, '0')}`}60006000${`73${target.replace(/^0x/, '')}`}5af15000`;
/** MSTOREs four words of 0x01 bytes: the BN254 points (1, 1), (1, 1), not on the curve. */
const FOUR_WORDS_OF_ONES = ['00', '20', '40', '60'].map((o) => `7f${'01'.repeat(32)}60${o}52`).join('');
/** Init code that deploys `runtime`. */
const initOf = (runtime: string): string => {
  const n = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${n}600c60003960${n}6000f3${runtime}`;
};

t.test('eth_createAccessList, eth_simulateV1 and geth error texts on stratad, compared with Anvil', async (t) => {
  const home = await initHome(t, 400);
  await startNode(t, home);
  const anvil = await launchAnvil(['--chain-id', String(CHAIN_ID), '--hardfork', 'prague', '--gas-limit', '30000000']);
  t.teardown(() => anvil.stop());
  const [funder] = devAccounts(1);
  await fundOnAnvil(anvil.port, [funder!.address], 10n ** 24n);
  const from = funder!.address.toLowerCase();

  // The same token on both chains (same deployer, same nonce: same address).
  const deploy = async (port: number): Promise<{ token: string; child: string; outer: string; callOuter: string }> => {
    const provider = new JsonRpcProvider(`http://127.0.0.1:${port}`, CHAIN_ID, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
    try {
      const wallet = new Wallet(funder!.privateKey, provider);
      const deployed = await new ContractFactory(token.abi, token.bytecode, wallet).deploy('Sim', 'SIM', 1_000_000n);
      await deployed.waitForDeployment();
      const child = await (await wallet.sendTransaction({ data: initOf(RDC_OUT_OF_BOUNDS) })).wait();
      const outer = await (await wallet.sendTransaction({ data: initOf(callOf(child!.contractAddress!, 0)) })).wait();
      const sent = await wallet.sendTransaction({ to: outer!.contractAddress!, gasLimit: 200_000n });
      await sent.wait();
      return { token: (await deployed.getAddress()).toLowerCase(), child: child!.contractAddress!.toLowerCase(), outer: outer!.contractAddress!.toLowerCase(), callOuter: sent.hash };
    } finally {
      provider.destroy();
    }
  };
  const ours = await deploy(home.http);
  const theirs = await deploy(anvil.port);
  t.equal(ours.token, theirs.token, 'same token address on both chains');
  const transferData = new Interface(token.abi).encodeFunctionData('transfer', ['0x00000000000000000000000000000000c0ffee03', 7n]);

  t.test('geth error texts: RETURNDATACOPY out of bounds and precompile failures', async (t) => {
    // A mined transaction whose inner call fails on RETURNDATACOPY, traced.
    const frames = await result<Json>(home.http, 'debug_traceTransaction', [ours.callOuter, { tracer: 'callTracer' }]);
    t.equal((frames['calls'] as Json[])[0]!['error'], 'return data out of bounds', 'callTracer frame of the mined call');
    t.equal(frames['error'], undefined, 'the outer frame succeeds');
    const logged = await result<{ structLogs: Json[] }>(home.http, 'debug_traceTransaction', [ours.callOuter, {}]);
    const faulting = logged.structLogs.find((s) => s['op'] === 'RETURNDATACOPY');
    t.ok(faulting, 'the struct logger shows the RETURNDATACOPY step itself, as geth does');
    // geth logs the step before running it and its struct logger ignores the fault that follows.
    t.equal(faulting?.['error'], undefined, 'the step is logged before it fails, without an error, as geth logs it');
    t.equal(logged.structLogs[logged.structLogs.indexOf(faulting!) + 1]?.['depth'], 1, 'the next step is back in the caller');

    const direct = await call(home.http, 'eth_call', [{ to: ours.child }, 'latest']);
    t.same(direct.error, { code: -32000, message: 'return data out of bounds' }, 'eth_call of the failing contract');

    const outer = addr(0xaa00);
    const cases: Array<[string, string, string]> = [
      ['ecpairing with 10 bytes', callOf(addr(8), 10), 'bad elliptic curve pairing size'],
      ['ecadd of points not on the curve', callOf(addr(6), 0x80, FOUR_WORDS_OF_ONES), 'bn256: malformed point'],
      ['ecmul of a point not on the curve', callOf(addr(7), 0x60, FOUR_WORDS_OF_ONES), 'bn256: malformed point'],
      ['blake2f with 10 bytes', callOf(addr(9), 10), 'invalid input length'],
      ['BLS12-381 G1 add with 10 bytes', callOf(addr(0x0b), 10), 'invalid input length'],
      ['a child with an undefined opcode', callOf(addr(0xbb00), 0), 'invalid opcode: opcode 0xc not defined'],
    ];
    for (const [label, code, expected] of cases) {
      const overrides = { [outer]: { code: `0x${code}` }, [addr(0xbb00)]: { code: '0x0c' } };
      const traced = await result<Json>(home.http, 'debug_traceCall', [{ from, to: outer, gas: '0x100000' }, 'latest', { tracer: 'callTracer', stateOverrides: overrides }]);
      t.equal((traced['calls'] as Json[])[0]!['error'], expected, `callTracer: ${label}`);
      const steps = await result<{ structLogs: Json[]; failed: boolean }>(home.http, 'debug_traceCall', [{ from, to: outer, gas: '0x100000' }, 'latest', { stateOverrides: overrides }]);
      t.equal(steps.failed, false, `struct logger: ${label} leaves the caller running`);
    }
    // eth_call words the outermost frame's failure as geth does too.
    const target = addr(0xaa03);
    for (const [code, expected] of [
      ['0x01', 'stack underflow (0 <=> 2)'],
      ['0x600456', 'invalid jump destination'],
      ['0xfe', 'invalid opcode: INVALID'],
      ['0x5b600056', 'out of gas'],
      [`0x${RDC_OUT_OF_BOUNDS}`, 'return data out of bounds'],
    ] as const) {
      const failed = await call(home.http, 'eth_call', [{ from, to: target, gas: '0x30000' }, 'latest', { [target]: { code } }]);
      t.same(failed.error, { code: -32000, message: expected }, `eth_call of ${code}: ${expected}`);
    }
    const pairing = await call(home.http, 'eth_call', [{ to: addr(8), input: `0x${'00'.repeat(10)}` }, 'latest']);
    t.same(pairing.error, { code: -32000, message: 'bad elliptic curve pairing size' }, 'eth_call to the pairing precompile');
    const ecadd = await call(home.http, 'eth_call', [{ to: addr(6), input: `0x${'01'.repeat(128)}` }, 'latest']);
    t.same(ecadd.error, { code: -32000, message: 'bn256: malformed point' }, 'eth_call to ecadd, not a revert');
  });

  t.test('eth_createAccessList', async (t) => {
    const request = { from, to: ours.token, input: transferData };
    const mine = await result<{ accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string; error?: string }>(home.http, 'eth_createAccessList', [request, 'latest']);
    const anvils = await result<{ accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string }>(anvil.port, 'eth_createAccessList', [request, 'latest']);
    const sorted = (list: Array<{ address: string; storageKeys: string[] }>) =>
      list.map((e) => ({ address: e.address.toLowerCase(), storageKeys: [...e.storageKeys].sort() })).sort((a, b) => a.address.localeCompare(b.address));
    t.same(sorted(mine.accessList), sorted(anvils.accessList), 'the token transfer touches the same slots as on Anvil');
    t.ok(mine.accessList.some((e) => e.address === ours.token && e.storageKeys.length === 2), 'the recipient contract is listed with its two balance slots');
    t.equal(mine.gasUsed, anvils.gasUsed, 'and uses the same gas with the list');
    t.equal(mine.error, undefined);

    // A hand-made contract: SLOAD slot 1, BALANCE of 0x…cc00, STATICCALL 0x…dd00, STATICCALL the identity precompile.
    const probe = addr(0xaa01);
    const code = `600154` + `73${hex20(0xcc00)}31` + `6000600060006000${`73${hex20(0xdd00)}`}5afa` + `6000600060006000${`73${hex20(4)}`}5afa` + '00';
    const listed = await result<{ accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string }>(home.http, 'eth_createAccessList', [{ from, to: probe }, 'latest', { [probe]: { code: `0x${code}` } }]);
    t.same(
      listed.accessList,
      [
        { address: probe, storageKeys: [`0x${'0'.repeat(63)}1`] },
        { address: addr(0xcc00), storageKeys: [] },
        { address: addr(0xdd00), storageKeys: [] },
      ],
      'the recipient with its slot, the touched accounts, no sender and no precompile',
    );
    const reverting = await result<{ accessList: unknown[]; error?: string }>(home.http, 'eth_createAccessList', [{ from, to: probe }, 'latest', { [probe]: { code: '0x600154600080fd' } }]);
    t.equal(reverting.error, 'execution reverted', 'a reverting message still gets its list, with geth\'s error');
    t.equal(reverting.accessList.length, 1);
    const poor = await call(home.http, 'eth_createAccessList', [{ from: addr(0xdead), to: probe, value: '0x1' }, 'latest']);
    t.match(poor.error?.message, /^failed to apply transaction: 0x[0-9a-f]{64} err: insufficient funds/, 'a message that cannot run is an error naming its hash');
  });

  t.test('eth_simulateV1 through viem and raw JSON-RPC, compared with Anvil', async (t) => {
    const viem = createPublicClient({ chain: chainOf(home.http, home.ws), transport: http() });
    const account = privateKeyToAccount(funder!.privateKey as `0x${string}`);
    const abi = parseAbi(['function transfer(address to, uint256 value) returns (bool)', 'function balanceOf(address) view returns (uint256)']);
    const simulated = await viem.simulateCalls({
      account,
      calls: [
        { to: '0x00000000000000000000000000000000000beef1', value: 5n },
        { to: ours.token as `0x${string}`, abi, functionName: 'transfer', args: ['0x00000000000000000000000000000000c0ffee03', 7n] },
        { to: ours.token as `0x${string}`, abi, functionName: 'balanceOf', args: ['0x00000000000000000000000000000000c0ffee03'] },
      ],
      traceTransfers: true,
    });
    t.same(simulated.results.map((r) => r.status), ['success', 'success', 'success'], 'viem simulateCalls: every call succeeds');
    t.equal(simulated.results[2]!.result, 7n, 'the third call sees the second one\'s transfer');
    const transferLog = simulated.results[0]!.logs![0]!;
    t.equal(transferLog.address.toLowerCase(), '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'traceTransfers: the value transfer is a log of 0xeeee…eeee');
    t.equal(BigInt(transferLog.data), 5n);

    const base = await viem.getBlockNumber();
    const blocks = await viem.simulateBlocks({
      blockNumber: base,
      blocks: [
        { calls: [{ account, to: ours.token as `0x${string}`, abi, functionName: 'transfer', args: ['0x00000000000000000000000000000000c0ffee04', 3n] }] },
        { blockOverrides: { number: base + 2n }, calls: [{ to: ours.token as `0x${string}`, abi, functionName: 'balanceOf', args: ['0x00000000000000000000000000000000c0ffee04'] }] },
      ],
    });
    t.equal(blocks.length, 2, 'viem simulateBlocks: two blocks');
    t.equal(blocks[1]!.number, base + 2n, 'the second at the number asked for');
    t.equal(blocks[1]!.calls[0]!.result, 3n, 'the second block sees the first block\'s state');

    // The same payload on both chains: calls agree on status, return data, gas and logs.
    const head = await result<string>(home.http, 'eth_blockNumber');
    const payload = {
      traceTransfers: true,
      blockStateCalls: [
        { calls: [{ from, to: '0x00000000000000000000000000000000000beef1', value: '0x5' }, { from, to: ours.token, input: transferData }] },
        { calls: [{ from, to: ours.token, input: '0x70a08231' + '0'.repeat(24) + '00000000000000000000000000000000c0ffee03' }, { from, to: ours.child }] },
      ],
    };
    const mine = await result<Json[]>(home.http, 'eth_simulateV1', [payload, head]);
    const anvils = await result<Json[]>(anvil.port, 'eth_simulateV1', [payload, 'latest']);
    // A failed call burns all the gas it was given, which by default geth makes the block's remaining gas and Anvil the whole block gas limit.
    const calls = (blocks: Json[]) =>
      blocks.map((b) => (b['calls'] as Json[]).map((c) => ({ status: c['status'], returnData: c['returnData'], gasUsed: c['status'] === '0x0' ? 'all it had' : c['gasUsed'], logs: (c['logs'] as Json[]).map((l) => ({ address: String(l['address']).toLowerCase(), topics: l['topics'], data: l['data'] })) })));
    t.same(calls(mine), calls(anvils), 'every call agrees with Anvil');
    t.equal(mine[0]!['number'], `0x${(Number(head) + 1).toString(16)}`, 'the first block follows the base block');
    t.equal(((mine[1]!['calls'] as Json[])[1]!['error'] as Json)['message'], 'return data out of bounds', 'a failing call has geth\'s error text');
    t.equal(((mine[1]!['calls'] as Json[])[1]!['error'] as Json)['code'], -32015, 'and the VM-error code');
    t.equal(mine[1]!['parentHash'], mine[0]!['hash'], 'blocks chain by hash');
    const second = mine[1]!['calls'] as Json[];
    t.equal(BigInt(second[1]!['gasUsed'] as string), BigInt(mine[1]!['gasLimit'] as string) - BigInt(second[0]!['gasUsed'] as string), 'a call without gas gets the block\'s remaining gas (geth)');
    t.equal(mine[1]!['gasUsed'], mine[1]!['gasLimit'], 'so the failing call fills the block');

    // Each error code, by direct JSON-RPC.
    const codeOf = async (opts: unknown): Promise<number | undefined> => (await call(home.http, 'eth_simulateV1', [opts, head])).error?.code;
    t.equal(await codeOf({ blockStateCalls: [] }), -32602, 'empty input');
    t.equal(await codeOf({ blockStateCalls: Array.from({ length: 257 }, () => ({ calls: [] })) }), -38026, 'more than 256 blocks');
    t.equal(await codeOf({ blockStateCalls: [{ blockOverrides: { number: `0x${(Number(head) + 300).toString(16)}` } }] }), -38026, 'a block more than 256 past the base');
    t.equal(await codeOf({ blockStateCalls: [{ blockOverrides: { number: head } }] }), -38020, 'a block number not above the base');
    t.equal(await codeOf({ blockStateCalls: [{ blockOverrides: { time: '0x1' } }] }), -38021, 'a timestamp not above the base');
    t.equal(await codeOf({ blockStateCalls: [{ blockOverrides: { gasLimit: '0x5208' }, calls: [{ from, to: from, gas: '0x5209' }] }] }), -38015, 'calls over the block gas limit');
    t.equal(await codeOf({ validation: true, blockStateCalls: [{ calls: [{ from, to: from, nonce: '0x0', maxFeePerGas: '0x3b9aca00' }] }] }), -38010, 'validation: nonce too low');
    t.equal(await codeOf({ validation: true, blockStateCalls: [{ calls: [{ from, to: from, nonce: '0xffff', maxFeePerGas: '0x3b9aca00' }] }] }), -38011, 'validation: nonce too high');
    t.equal(await codeOf({ blockStateCalls: [{ calls: [{ from: addr(0xdead), to: from, value: '0x1' }] }] }), -38014, 'insufficient funds for the value');
    t.equal(await codeOf({ blockStateCalls: [{ calls: [{ from, to: from, gas: '0x100' }] }] }), -38013, 'intrinsic gas too low');
    t.equal(await codeOf({ validation: true, blockStateCalls: [{ calls: [{ from, to: from }] }] }), -32602, 'validation: a fee cap below the base fee (geth: invalid params)');
    t.equal(await codeOf({ blockStateCalls: [{ calls: Array.from({ length: 1001 }, () => ({ from, to: from })) }] }), -38026, 'more than 1,000 calls');
    // Two calls that each burn a whole 30M-gas block exceed the node's 50M gas-cap for the simulation.
    t.equal(await codeOf({ blockStateCalls: [{ calls: [{ from, to: ours.child }] }, { calls: [{ from, to: ours.child }] }] }), -38026, 'the gas cap bounds the whole simulation');
    // movePrecompileToAddress: sha256 (0x02) answers at 0x…1234, and 0x02 itself runs the code put there.
    const digest = '0x' + createHash('sha256').update(Buffer.from('abc')).digest('hex');
    const moved = await result<Json[]>(home.http, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [addr(2)]: { movePrecompileToAddress: addr(0x1234), code: '0x602a60005260206000f3' } },
            calls: [{ from, to: addr(0x1234), input: '0x616263' }, { from, to: addr(2), input: '0x616263' }],
          },
          { calls: [{ from, to: addr(2), input: '0x616263' }] },
        ],
      },
      head,
    ]);
    const movedCalls = moved.map((b) => (b['calls'] as Json[]).map((c) => c['returnData']));
    t.same(movedCalls, [[digest, `0x${'0'.repeat(62)}2a`], [digest]], 'the moved precompile answers at its new address, the override at the old one, and only in that block');
    t.equal(await codeOf({ blockStateCalls: [{ stateOverrides: { [addr(2)]: { movePrecompileToAddress: addr(2) } } }] }), -38022, 'a precompile moved onto itself');
    t.equal(
      await codeOf({ blockStateCalls: [{ stateOverrides: { [addr(2)]: { movePrecompileToAddress: addr(0x1234) }, [addr(3)]: { movePrecompileToAddress: addr(0x1234) } } }] }),
      -38023,
      'two precompiles moved onto one address',
    );
    t.equal(await codeOf({ blockStateCalls: [{ stateOverrides: { [addr(0x99)]: { movePrecompileToAddress: addr(0x1234) } } }] }), -32602, 'moving an account that is not a precompile');
    // PREVRANDAO (0x44), TIMESTAMP (0x42), NUMBER (0x43) and COINBASE (0x41) of the simulated block, returned as four words.
    const reader = addr(0xaa02);
    const readerCode = '4460005242602052436040524160605260806000f3';
    const overridden = await result<Json[]>(home.http, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            blockOverrides: { number: `0x${(Number(head) + 7).toString(16)}`, time: '0xfffffff0', prevRandao: `0x${'ab'.repeat(32)}`, feeRecipient: addr(0xfee) },
            stateOverrides: { [reader]: { code: `0x${readerCode}` } },
            calls: [{ from, to: reader }],
          },
        ],
      },
      head,
    ]);
    t.equal(overridden.length, 7, 'the gap up to the block asked for is filled with empty blocks');
    const words = String(((overridden[6]!['calls'] as Json[])[0]!)['returnData']).slice(2).match(/.{64}/g)!;
    t.same(
      words.map((w) => BigInt(`0x${w}`)),
      [BigInt(`0x${'ab'.repeat(32)}`), 0xfffffff0n, BigInt(Number(head) + 7), 0xfeen],
      'the call sees the overridden prevRandao, timestamp, number and fee recipient',
    );
    const nonceChecked = await result<Json[]>(home.http, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from, to: from, nonce: '0x0' }] }] }, 'latest']);
    t.equal(((nonceChecked[0]!['calls'] as Json[])[0]!)['status'], '0x1', 'without validation the nonce is not checked');
    const full = await result<Json[]>(home.http, 'eth_simulateV1', [{ returnFullTransactions: true, blockStateCalls: [{ calls: [{ from, to: from }] }] }, 'latest']);
    const tx = (full[0]!['transactions'] as Json[])[0]!;
    t.equal(String(tx['from']).toLowerCase(), from, 'returnFullTransactions: transaction objects with their sender');
  });
});
