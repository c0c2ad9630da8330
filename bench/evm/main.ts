/**
 * `npm run bench:evm [-- --quick] [--json] [--calls N] [--rounds N]`
 *
 * What one `eth_call` costs the EVM path alone: an App on a fresh home in a temporary
 * directory (real RocksDB, memiavl and FlatKV), the test ERC-20 deployed in block 1, then
 * `App.call` — the code an execution worker runs for eth_call — in this one thread, with no
 * RPC, no worker hand-off and no load generator sharing the cores. bench:node's distinct-holder
 * figure adds all of those; this one says how much of a call is execution, so a change to the
 * EVM path can be measured without that noise.
 * - `evmCallBalanceOfUs`: `balanceOf` of a different holder every call (as bench:node's
 *   distinct-holder figure asks), microseconds per call;
 * - `evmCallNoCodeUs`: the same calldata sent to an address without code: the fixed cost of a
 *   call (the message, runTx's checks and journal, the account reads) without the interpreter;
 * - `evmCallInterpreterUs`: the difference, what running the Token's code adds.
 * Each figure is the median of `--rounds` rounds of `--calls` calls, after an untimed pass that
 * compiles the hot paths; the calls never repeat within a round, and no call is cached (a call
 * without a block header is never kept). Every answer is checked: `balanceOf` returns one
 * 32-byte word (the whole supply for the deployer, zero for the others) and the call without
 * code returns nothing and uses only its intrinsic gas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { App, parseGenesis, type StateAt } from '../../src/app/index.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import type { CallRequest } from '../../src/evm/call.js';
import { memoryLogger } from '../../src/log/logger.js';
import { DEFAULT_STATE_STORE_CONFIG } from '../../src/store/index.js';
import { emitReport, table } from '../report.js';
import { balanceOfData, signTokenDeploy, TOKEN_SUPPLY } from '../node/reads.js';
import { medianBy } from '../node/round-stats.js';

const EVM_CHAIN_ID = 713715;
const BASE_FEE = 1_000_000_000n;
const GAS_LIMIT = 30_000_000n;
/**
 * Gas of a call to an address without code: its intrinsic gas, 21,000 plus 4 per zero and 16
 * per other calldata byte, or EIP-7623's floor (21,000 plus 10 per token, a zero byte one
 * token and any other four) where that is more.
 */
function noCodeGas(data: Uint8Array): bigint {
  const zeros = BigInt(data.filter((byte) => byte === 0).length);
  const others = BigInt(data.length) - zeros;
  const standard = 21_000n + 4n * zeros + 16n * others;
  const floor = 21_000n + 10n * (zeros + 4n * others);
  return standard > floor ? standard : floor;
}

/** Thrown when a call's answer is not the one the state implies: the timing would be of something else. */
class WrongAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WrongAnswerError';
  }
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    calls: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const calls = Number(values.calls ?? (values.quick ? 5_000 : 20_000));
const rounds = Number(values.rounds ?? (values.quick ? 3 : 5));
if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('bench:evm: --calls and --rounds take whole numbers of 1 or more\n');
  process.exit(2);
}
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** A fresh App with the Token deployed in block 1, and the state at that height. */
async function deployedApp(dir: string): Promise<{ app: App; state: StateAt; token: Uint8Array; deployer: string }> {
  const [account] = devAccounts(1);
  const genesis = parseGenesis({
    chain_id: 'strata-bench-evm',
    evm_chain_id: EVM_CHAIN_ID,
    genesis_time: '2024-01-01T00:00:00Z',
    accounts: [{ address: account!.address, balance: (10n ** 24n).toString() }],
    validators: [{ address: 'AA'.repeat(20), pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.alloc(32, 7).toString('base64') }, power: 10 }],
  });
  const ss = { ...DEFAULT_STATE_STORE_CONFIG, keepRecent: 0, pruneIntervalSeconds: 3600 };
  const app = await App.open(dir, { commit: { snapshotInterval: 0 }, ss }, genesis, memoryLogger('warn').logger);
  await app.initChain();
  const deploy = signTokenDeploy(account!.privateKey, account!.address, 0n, EVM_CHAIN_ID);
  const result = await app.executeBlock(
    { height: 1, timeMs: Date.parse(genesis.genesis_time) + 1000, proposer: new Uint8Array(20), baseFee: BASE_FEE, gasLimit: GAS_LIMIT },
    [Buffer.from(deploy.raw.slice(2), 'hex')],
  );
  const deployed = result.txs[0];
  if (deployed?.kind !== 'executed' || deployed.receipt.status !== 1) throw new WrongAnswerError('the Token deployment did not succeed');
  return { app, state: { height: 1, view: app.storedView(1) }, token: Buffer.from(deploy.address.slice(2), 'hex'), deployer: account!.address };
}

/** Calldata of `balanceOf(holder)`. */
const balanceOfCalldata = (holder: string): Buffer => Buffer.from(balanceOfData(holder).slice(2), 'hex');

/** `balanceOf` calls on the Token, one per holder, and the same calldata to an address without code. */
function requests(token: Uint8Array, first: number, count: number): { balanceOf: CallRequest[]; noCode: CallRequest[] } {
  const empty = Buffer.alloc(20, 0xee);
  const balanceOf: CallRequest[] = [];
  const noCode: CallRequest[] = [];
  for (let i = 0; i < count; i++) {
    const data = balanceOfCalldata(`0x${(0xb0000000 + first + i).toString(16).padStart(40, '0')}`);
    balanceOf.push({ to: token, data });
    noCode.push({ to: empty, data });
  }
  return { balanceOf, noCode };
}

/** Runs `batch` one call after another and checks each answer; microseconds per call. */
async function timeCalls(app: App, state: StateAt, batch: readonly CallRequest[], check: (request: CallRequest, returnData: Uint8Array, gasUsed: bigint) => void): Promise<number> {
  const started = performance.now();
  for (const request of batch) {
    const { returnData, gasUsed } = await app.call(request, state);
    check(request, returnData, gasUsed);
  }
  return ((performance.now() - started) * 1000) / batch.length;
}

const zeroWord = (bytes: Uint8Array): boolean => bytes.length === 32 && bytes.every((b) => b === 0);
const checkBalanceOf = (_: CallRequest, returnData: Uint8Array): void => {
  if (!zeroWord(returnData)) throw new WrongAnswerError(`balanceOf of a fresh holder returned 0x${Buffer.from(returnData).toString('hex')}, not one zero word`);
};
const checkNoCode = (request: CallRequest, returnData: Uint8Array, gasUsed: bigint): void => {
  if (returnData.length !== 0 || gasUsed !== noCodeGas(request.data!)) {
    throw new WrongAnswerError(`a call without code returned ${returnData.length} bytes for ${gasUsed} gas, not nothing for ${noCodeGas(request.data!)}`);
  }
};

const dir = mkdtempSync(join(tmpdir(), 'strata-bench-evm-'));
try {
  const { app, state, token, deployer } = await deployedApp(dir);
  try {
    const supply = await app.call({ to: token, data: balanceOfCalldata(deployer) }, state);
    if (BigInt(`0x${Buffer.from(supply.returnData).toString('hex') || '0'}`) !== TOKEN_SUPPLY) throw new WrongAnswerError('balanceOf(deployer) is not the whole supply');

    const warm = requests(token, 0, Math.min(calls, 2_000));
    await timeCalls(app, state, warm.balanceOf, checkBalanceOf);
    await timeCalls(app, state, warm.noCode, checkNoCode);
    const balanceOfRounds: number[] = [];
    const noCodeRounds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Holders never asked before in this run: no cache of any layer has their slot.
      const batch = requests(token, 2_000 + round * calls, calls);
      balanceOfRounds.push(await timeCalls(app, state, batch.balanceOf, checkBalanceOf));
      noCodeRounds.push(await timeCalls(app, state, batch.noCode, checkNoCode));
      log(`round ${round + 1}/${rounds}: balanceOf ${balanceOfRounds[round]!.toFixed(1)} µs, no code ${noCodeRounds[round]!.toFixed(1)} µs per call`);
    }
    const evmCallBalanceOfUs = medianBy(balanceOfRounds, (us) => us)!;
    const evmCallNoCodeUs = medianBy(noCodeRounds, (us) => us)!;
    const output = {
      calls,
      rounds,
      evmCallBalanceOfUs,
      evmCallNoCodeUs,
      evmCallInterpreterUs: evmCallBalanceOfUs - evmCallNoCodeUs,
      evmCallBalanceOfRoundsUs: balanceOfRounds,
      evmCallNoCodeRoundsUs: noCodeRounds,
    };
    const text = table([
      ['figure (median of rounds)', 'µs per call', 'calls per second'],
      ['eth_call balanceOf, distinct holders', evmCallBalanceOfUs.toFixed(1), Math.round(1e6 / evmCallBalanceOfUs).toLocaleString('en-US')],
      ['eth_call to an address without code', evmCallNoCodeUs.toFixed(1), Math.round(1e6 / evmCallNoCodeUs).toLocaleString('en-US')],
      ['the Token code (difference)', output.evmCallInterpreterUs.toFixed(1), ''],
    ]);
    emitReport(`${text}\n(${calls} calls per round, ${rounds} rounds, one thread, no RPC)`, output, values.json);
  } finally {
    await app.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
