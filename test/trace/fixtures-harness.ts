/**
 * Runs go-ethereum's tracer fixtures (eth/tracers/internal/tracetest/testdata) against the
 * tracers of src/trace: genesis alloc into a fresh in-memory state, a Common at the fork
 * geth would pick for the fixture's block, the block from `context`, the signed `input`
 * through runTx with the tracer attached, and geth's comparison for the folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createBlock, type Block } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Account, createAddressFromString, type KZG } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';

import { nativeCrypto } from '../../src/evm/crypto.js';
import { RawJson } from '../../src/util/raw-json.js';
import { createTracer, hexBytes, loadJsTracerEngine, traceTransaction, type JsonValue } from '../../src/trace/index.js';

/** The fixture tree, copied from go-ethereum (see test/fixtures/conformance/SOURCES.md). */
export const FIXTURE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/conformance/geth-tracers');

type Json = JsonValue;
type JsonObject = { [key: string]: Json };

/** One fixture file as geth's harness reads it. */
export interface GethFixture {
  genesis: JsonObject;
  context: JsonObject;
  input: string;
  tracerConfig?: JsonObject;
  result: Json;
}

/** How a folder's results are compared (geth's harness differs per folder). */
type Comparison = 'call' | 'legacyCall' | 'flat' | 'sorted';

/** The tracer a folder exercises, or why this node cannot run it. */
type FolderPlan = { tracer: string; comparison: Comparison } | { unsupported: string };

const FOLDER_PLANS: Record<string, FolderPlan> = {
  call_tracer: { tracer: 'callTracer', comparison: 'call' },
  call_tracer_withLog: { tracer: 'callTracer', comparison: 'call' },
  call_tracer_flat: { tracer: 'flatCallTracer', comparison: 'flat' },
  prestate_tracer: { tracer: 'prestateTracer', comparison: 'sorted' },
  prestate_tracer_with_diff_mode: { tracer: 'prestateTracer', comparison: 'sorted' },
  call_tracer_legacy: { tracer: 'callTracerLegacy', comparison: 'legacyCall' },
  prestate_tracer_legacy: { tracer: 'prestateTracerLegacy', comparison: 'sorted' },
  erc7562_tracer: { tracer: 'erc7562Tracer', comparison: 'sorted' },
};

/** The outcome of one fixture. */
export interface FixtureOutcome {
  folder: string;
  name: string;
  passed: boolean;
  /** Why it failed: the tracer is missing, the run threw, or the outputs differ. */
  reason?: string;
  actual?: string;
  expected?: string;
}

/** Fixture folders, sorted. */
export function fixtureFolders(): string[] {
  return readdirSync(FIXTURE_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The `.json` fixtures of `folder`, sorted. */
export function fixtureNames(folder: string): string[] {
  return readdirSync(join(FIXTURE_ROOT, folder))
    .filter((name) => name.endsWith('.json'))
    .sort();
}

function loadFixture(folder: string, name: string): GethFixture {
  return JSON.parse(readFileSync(join(FIXTURE_ROOT, folder, name), 'utf8')) as GethFixture;
}

function num(value: Json | undefined): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'string') return value === '' ? 0n : BigInt(value);
  throw new Error(`not a number: ${JSON.stringify(value)}`);
}

/** Geth's fork keys in activation order, each with the ethereumjs hardfork it turns on. */
const FORKS: Array<[key: string, fork: Hardfork, kind: 'block' | 'time' | 'merge']> = [
  ['homesteadblock', Hardfork.Homestead, 'block'],
  ['eip150block', Hardfork.TangerineWhistle, 'block'],
  // ethereumjs ties EIP-155 to EIP-158; the EVM rules follow EIP-158's block.
  ['eip158block', Hardfork.SpuriousDragon, 'block'],
  ['byzantiumblock', Hardfork.Byzantium, 'block'],
  ['constantinopleblock', Hardfork.Constantinople, 'block'],
  ['petersburgblock', Hardfork.Petersburg, 'block'],
  ['istanbulblock', Hardfork.Istanbul, 'block'],
  ['muirglacierblock', Hardfork.MuirGlacier, 'block'],
  ['berlinblock', Hardfork.Berlin, 'block'],
  ['londonblock', Hardfork.London, 'block'],
  ['arrowglacierblock', Hardfork.ArrowGlacier, 'block'],
  ['grayglacierblock', Hardfork.GrayGlacier, 'block'],
  ['terminaltotaldifficulty', Hardfork.Paris, 'merge'],
  ['shanghaitime', Hardfork.Shanghai, 'time'],
  ['cancuntime', Hardfork.Cancun, 'time'],
  ['praguetime', Hardfork.Prague, 'time'],
  ['osakatime', Hardfork.Osaka, 'time'],
];

function lowerKeys(config: JsonObject): Map<string, Json> {
  return new Map(Object.entries(config).map(([key, value]) => [key.toLowerCase(), value]));
}

/** The latest fork active at (number, time), each fork judged on its own as geth does. */
export function forkAt(config: JsonObject, number: bigint, time: bigint): Hardfork {
  const keys = lowerKeys(config);
  let fork: Hardfork = Hardfork.Chainstart;
  for (const [key, candidate, kind] of FORKS) {
    const value = keys.get(key);
    if (value === undefined || value === null) continue;
    const active = kind === 'merge' ? num(value) === 0n : kind === 'block' ? num(value) <= number : num(value) <= time;
    if (active) fork = candidate;
  }
  return fork;
}

function unavailable(): never {
  throw new Error('KZG proofs cannot be checked: no KZG library is installed (blob sidecars are not supported here)');
}

/** Lets blob transactions without a sidecar be decoded; any KZG proof work fails loudly. */
const NO_KZG: KZG = {
  blobToKzgCommitment: unavailable,
  computeBlobProof: unavailable,
  verifyProof: unavailable,
  verifyBlobProofBatch: unavailable,
  computeCells: unavailable,
  computeCellsAndProofs: unavailable,
  recoverCellsAndProofs: unavailable,
  verifyCellKzgProofBatch: unavailable,
};

function commonFor(config: JsonObject, fork: Hardfork): Common {
  return createCustomCommon({ chainId: Number(num(config.chainId)) }, Mainnet, {
    hardfork: fork,
    customCrypto: { ...nativeCrypto, kzg: NO_KZG },
  });
}

async function loadAlloc(vm: VM, alloc: JsonObject): Promise<void> {
  const state = vm.stateManager;
  await state.checkpoint();
  for (const [address, raw] of Object.entries(alloc)) {
    const entry = raw as JsonObject;
    const at = createAddressFromString(address);
    await state.putAccount(at, new Account(num(entry.nonce), num(entry.balance)));
    const code = typeof entry.code === 'string' ? hexBytes(entry.code) : new Uint8Array();
    if (code.length > 0) await state.putCode(at, code);
    for (const [slot, value] of Object.entries((entry.storage ?? {}) as JsonObject)) {
      const bytes = hexBytes(String(value));
      if (bytes.some((b) => b !== 0)) await state.putStorage(at, hexBytes(String(slot).replace(/^0x/, '').padStart(64, '0')), bytes);
    }
  }
  await state.commit();
}

function blockFor(fixture: GethFixture, common: Common): Block {
  const { context, genesis } = fixture;
  const merged = num(lowerKeys(genesis.config as JsonObject).get('terminaltotaldifficulty') ?? null) === 0n &&
    lowerKeys(genesis.config as JsonObject).get('terminaltotaldifficulty') !== undefined;
  const header: Record<string, unknown> = {
    number: num(context.number),
    timestamp: num(context.timestamp),
    coinbase: createAddressFromString(String(context.miner)),
    gasLimit: num(context.gasLimit),
    difficulty: merged ? 0n : num(context.difficulty),
  };
  if (merged && typeof genesis.mixHash === 'string') header.mixHash = hexBytes(genesis.mixHash);
  if (common.gteHardfork(Hardfork.London)) header.baseFeePerGas = num(context.baseFeePerGas);
  // geth's harness derives the blob base fee from a parent without excess blob gas: the minimum, 1 wei.
  if (common.gteHardfork(Hardfork.Cancun)) {
    header.excessBlobGas = 0n;
    header.blobGasUsed = 0n;
  }
  return createBlock({ header }, { common, skipConsensusFormatValidation: true });
}

/** Runs the fixture's transaction with `tracer` and returns the tracer output and receipt gas. */
export async function runFixture(fixture: GethFixture, tracer: string): Promise<{ result: Json; gasUsed: bigint }> {
  await loadJsTracerEngine();
  const config = fixture.genesis.config as JsonObject;
  const fork = forkAt(config, num(fixture.context.number), num(fixture.context.timestamp));
  const common = commonFor(config, fork);
  const vm = await createVM({ common });
  await loadAlloc(vm, fixture.genesis.alloc as JsonObject);
  const block = blockFor(fixture, common);
  const tx = createTxFromRLP(hexBytes(fixture.input), { common });
  const traced = await traceTransaction(vm, tx, block, createTracer(tracer, fixture.tracerConfig ?? {}), {
    skipBlockGasLimitValidation: true,
    skipHardForkValidation: true,
  });
  return { result: traced.result, gasUsed: traced.run.totalGasSpent };
}

const FRAME_ORDER = ['from', 'gas', 'gasUsed', 'to', 'input', 'output', 'error', 'revertReason', 'calls', 'logs', 'value', 'type'];
const LOG_ORDER = ['address', 'topics', 'data', 'index', 'position'];

/** An expected call frame in geth's struct order (a log without `index` means index 0). */
function canonicalFrame(frame: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of FRAME_ORDER) {
    const value = frame[key];
    if (value === undefined || value === null) continue;
    if (key === 'calls') out.calls = (value as JsonObject[]).map(canonicalFrame);
    else if (key === 'logs') {
      out.logs = (value as JsonObject[]).map((log) => {
        const ordered: JsonObject = {};
        for (const field of LOG_ORDER) ordered[field] = log[field] ?? (field === 'index' ? '0x0' : null);
        return ordered;
      });
    } else out[key] = value;
  }
  return out;
}

function isZero(value: Json | undefined): boolean {
  return value === undefined || value === null || value === '' || value === '0x' || value === '0x0' ||
    value === '0x0000000000000000000000000000000000000000';
}

function prune(object: JsonObject, keep: ReadonlySet<string>): JsonObject | undefined {
  const out: JsonObject = {};
  for (const key of Object.keys(object).sort()) if (keep.has(key) || !isZero(object[key])) out[key] = object[key] ?? null;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** A flat trace entry as geth's lenient round trip sees it (block placement ignored, zero values dropped). */
function canonicalFlat(entry: JsonObject): JsonObject {
  const out: JsonObject = {};
  const action = prune((entry.action ?? {}) as JsonObject, new Set(['value']));
  if (action !== undefined) out.action = action;
  if (typeof entry.error === 'string' && entry.error !== '') out.error = entry.error;
  const result = entry.result && typeof entry.result === 'object' ? prune(entry.result as JsonObject, new Set()) : undefined;
  if (result !== undefined) out.result = result;
  out.subtraces = entry.subtraces ?? 0;
  out.traceAddress = entry.traceAddress ?? [];
  out.type = entry.type ?? null;
  return out;
}

/**
 * A call frame as geth's harness re-encodes both sides of the legacy folder through its
 * struct: addresses lower-cased, empty output/error/calls dropped, missing gas left out.
 */
function schemaFrame(frame: JsonObject): JsonObject {
  const lower = (value: Json | undefined): Json | undefined => (typeof value === 'string' ? value.toLowerCase() : value);
  const calls = Array.isArray(frame.calls) ? (frame.calls as JsonObject[]).map(schemaFrame) : [];
  return canonicalFrame({
    ...frame,
    from: lower(frame.from) ?? '0x0000000000000000000000000000000000000000',
    to: lower(frame.to) ?? null,
    input: frame.input ?? '0x',
    output: frame.output === '0x' ? null : (frame.output ?? null),
    error: frame.error === '' ? null : (frame.error ?? null),
    calls: calls.length === 0 ? null : calls,
  });
}

/** JSON with object keys sorted at every level (Go's map encoding). */
function sortedJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(value[key] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Both sides as the strings geth's harness compares for `comparison`. */
function comparable(comparison: Comparison, actual: Json, expected: Json): [string, string] {
  switch (comparison) {
    case 'call':
      return [JSON.stringify(actual), JSON.stringify(canonicalFrame(expected as JsonObject))];
    case 'legacyCall':
      return [JSON.stringify(schemaFrame(actual as JsonObject)), JSON.stringify(schemaFrame(expected as JsonObject))];
    case 'flat':
      return [
        JSON.stringify((actual as JsonObject[]).map(canonicalFlat)),
        JSON.stringify((expected as JsonObject[]).map(canonicalFlat)),
      ];
    case 'sorted':
      return [sortedJson(actual), sortedJson(expected)];
  }
}

/** Runs one fixture and compares it the way geth's harness does for its folder. */
export async function checkFixture(folder: string, name: string): Promise<FixtureOutcome> {
  const plan = FOLDER_PLANS[folder] ?? { unsupported: `no tracer is known for folder ${folder}` };
  if ('unsupported' in plan) return { folder, name, passed: false, reason: plan.unsupported };
  const fixture = loadFixture(folder, name);
  let run: { result: Json; gasUsed: bigint };
  try {
    run = await runFixture(fixture, plan.tracer);
  } catch (error) {
    return { folder, name, passed: false, reason: `run failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  const [actual, expected] = comparable(plan.comparison, run.result, fixture.result);
  if (actual !== expected) return { folder, name, passed: false, reason: 'output differs', actual, expected };
  if (plan.comparison === 'call' || plan.comparison === 'legacyCall') {
    const topGas = (fixture.result as JsonObject).gasUsed;
    if (typeof topGas === 'string' && BigInt(topGas) !== run.gasUsed) {
      return { folder, name, passed: false, reason: `receipt gas ${run.gasUsed} differs from the top frame's gasUsed ${topGas}` };
    }
  }
  return { folder, name, passed: true, actual, expected };
}
