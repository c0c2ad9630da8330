/**
 * The struct (opcode) logger: hand-written bytecode run through traceTransaction on an
 * @ethereumjs VM, one test per option and field of the execution-apis opcode-tracer spec
 * (with geth's presence rules), every result checked against spec/opcode-tracer.yaml, the
 * node's byte cap, a replay of the execution-apis test chain compared byte for byte with
 * geth's recorded answers, and erc7562Tracer against geth's fixtures.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { createBlock, createBlockFromBytesArray, type Block } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, bytesToHex, createAddressFromPrivateKey, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import t, { type Test } from 'tap';
import { parse as parseYaml } from 'yaml';

import { nativeCrypto } from '../../src/evm/crypto.js';
import { parseTraceConfig } from '../../src/rpc/debug/methods.js';
import { TraceTooLargeError, StructLogger, type StructLoggerConfig } from '../../src/trace/struct-logger.js';
import { TracerConfigError } from '../../src/trace/errors.js';
import { createTracer } from '../../src/trace/registry.js';
import { traceTransaction } from '../../src/trace/trace-tx.js';
import type { FrameEnd, JsonValue, OpcodeStep, Tracer, TxEnd } from '../../src/trace/types.js';
import { RawJson, encodeJson } from '../../src/util/raw-json.js';
import { ReferenceStructLogger } from './struct-logger-reference.js';
import { FIXTURE_ROOT, checkFixture, fixtureNames, runFixture, type GethFixture } from './fixtures-harness.js';

type Json = JsonValue;
type JsonObject = { [key: string]: Json };

// ---------------------------------------------------------------------------------------------
// A tiny JSON-schema checker for the subset spec/opcode-tracer.yaml uses: type, required,
// properties, items, additionalProperties, minimum, and $ref to '#/components/schemas/<name>'.

// The execution-apis files sit beside the geth fixtures, in test/fixtures/conformance.
const SPEC_DIR = resolve(FIXTURE_ROOT, '../execution-apis-debug');
const SPEC = parseYaml(readFileSync(join(SPEC_DIR, 'spec/opcode-tracer.yaml'), 'utf8')) as Record<string, JsonObject>;

/** execution-apis base types the spec refers to but defines elsewhere (its base-types.yaml patterns). */
const BASE_TYPES: Record<string, JsonObject> = {
  uint256: { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]{0,63})$' },
  bytes32: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
  bytes: { type: 'string', pattern: '^0x[0-9a-f]*$' },
  hash32: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
};

function resolveRef(ref: string): JsonObject {
  const name = ref.replace('#/components/schemas/', '');
  const schema = SPEC[name] ?? BASE_TYPES[name];
  if (schema === undefined) throw new Error(`schema ${ref} is not known to the checker`);
  return schema;
}

function typeOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Every way `value` breaks `schema`, as `path: problem` lines. */
function violations(value: Json, schema: JsonObject, path = '$'): string[] {
  if (typeof schema.$ref === 'string') return violations(value, resolveRef(schema.$ref), path);
  const problems: string[] = [];
  const type = schema.type;
  if (typeof type === 'string' && typeOf(value) !== type && !(type === 'number' && typeOf(value) === 'integer')) {
    return [`${path}: expected ${type}, got ${typeOf(value)}`];
  }
  if (typeof schema.pattern === 'string' && typeof value === 'string' && !new RegExp(schema.pattern).test(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) {
    problems.push(`${path}: ${value} is below ${schema.minimum}`);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => problems.push(...violations(item, schema.items as JsonObject, `${path}[${i}]`)));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of (schema.required ?? []) as string[]) if (!(key in value)) problems.push(`${path}: missing ${key}`);
    const properties = (schema.properties ?? {}) as JsonObject;
    for (const [key, item] of Object.entries(value)) {
      const property = properties[key] as JsonObject | undefined;
      if (property !== undefined) problems.push(...violations(item, property, `${path}.${key}`));
      else if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') {
        problems.push(...violations(item, schema.additionalProperties as JsonObject, `${path}.${key}`));
      } else if (schema.properties !== undefined) problems.push(`${path}: unexpected key ${key}`);
    }
  }
  return problems;
}

const TRACE_SCHEMA = SPEC.OpcodeTransactionTrace!;

// ---------------------------------------------------------------------------------------------
// Hand-written contracts run on a fresh Cancun VM.

const SENDER_KEY = hexToBytes('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const SENDER = createAddressFromPrivateKey(SENDER_KEY);

/** Contract addresses: 0x00..0aNN. */
function at(n: number): string {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

/** `PUSH20 <address>`. */
function push20(address: string): string {
  return `73${address.slice(2)}`;
}

const SIMPLE = at(0xa1);
/** mstore(0, 0x2a); return(0, 32) */
const SIMPLE_CODE = '602a60005260206000f3';

const STORAGE = at(0xa2);
/** sstore(3, 5); sstore(1, 9); pop(sload(2)); sstore(1, 0); stop — slot 2 holds 7 beforehand. */
const STORAGE_CODE = '6005600355' + '6009600155' + '60025450' + '6000600155' + '00';

const RETURNER = at(0xa3);
/** mstore(0, 0xbeef); return(0, 32) */
const RETURNER_CODE = '61beef60005260206000f3';

const CALLER = at(0xa4);
/** pop(call(0xffff, RETURNER, 0, 0, 0, 0, 0)); pop(returndatasize()); stop */
const CALLER_CODE = '60006000600060006000' + push20(RETURNER) + '61ffff' + 'f1' + '50' + '3d50' + '00';

const SLOT7_WRITER = at(0xa5);
/** sstore(7, 0x2a); stop */
const SLOT7_WRITER_CODE = '602a600755' + '00';

const DELEGATOR = at(0xa6);
/** sstore(1, 1); pop(delegatecall(0xffff, SLOT7_WRITER, 0, 0, 0, 0)); pop(sload(7)); stop */
const DELEGATOR_CODE = '6001600155' + '60006000600060' + '00' + push20(SLOT7_WRITER) + '61ffff' + 'f4' + '50' + '60075450' + '00';

const UNDERFLOW = at(0xa7);
/** add with an empty stack */
const UNDERFLOW_CODE = '01';

const REVERTER = at(0xa8);
/** mstore(0, 0xdead); revert(0, 32) */
const REVERTER_CODE = '61dead60005260206000fd';

const INVALID_OP = at(0xa9);
const INVALID_OP_CODE = '6001fe';

const LOOP = at(0xaa);
/** jumpdest; jump(0) — runs until its gas is gone */
const LOOP_CODE = '5b600056';

const LOOP_CALLER = at(0xab);
/** pop(call(1000, LOOP, 0, 0, 0, 0, 0)); stop */
const LOOP_CALLER_CODE = '60006000600060006000' + push20(LOOP) + '6103e8' + 'f1' + '50' + '00';

const NAMES = at(0xac);
/** pop(prevrandao); then the undefined byte 0x0c */
const NAMES_CODE = '4450' + '0c';

const RUNS_OFF = at(0xad);
/** push1 1; pop — and then the code ends without STOP */
const RUNS_OFF_CODE = '600150';

const REFUSED_CALLER = at(0xae);
/**
 * pop(call(0xffff, RETURNER, 0, 0, 0, 0, 0)); pop(call(0xffff, RETURNER, 1, 0, 0, 0, 0)) — the
 * second is refused (no balance to send); pop(returndatasize()); stop
 */
const REFUSED_CALLER_CODE =
  '60006000600060006000' + push20(RETURNER) + '61ffff' + 'f1' + '50' + '60006000600060006001' + push20(RETURNER) + '61ffff' + 'f1' + '50' + '3d50' + '00';

const MEMORY_GROWER = at(0xaf);
/** mstore(0, 1); mstore(0x40, 2); mstore8(0x101, 3); pop(mload(0x200)); stop — memory grows in steps */
const MEMORY_GROWER_CODE = '6001600052' + '6002604052' + '600361010153' + '6102005150' + '00';

/** Init code: sstore(1, 5); then return SIMPLE_CODE (10 bytes) as the runtime code. */
const INIT_CODE = '6005600155' + '69' + SIMPLE_CODE + '600052' + '600a6016f3';

const CREATOR = at(0xb0);
/**
 * mstore(0, INIT_CODE) (24 bytes, so at 8..32); addr := create(0, 8, 24); pop(call(0xffff,
 * addr, 0, 0, 0, 0, 0)); pop(addr); pop(call(0xffff, REVERTER, 0, 0, 0, 0, 0)); stop
 */
const CREATOR_CODE =
  '77' + INIT_CODE + '600052' + '601860086000f0' + '6000600060006000600085' + '61ffff' + 'f1' + '50' + '50' +
  '60006000600060006000' + push20(REVERTER) + '61ffff' + 'f1' + '50' + '00';

const EOA = at(0xee);

const CODES: Record<string, string> = {
  [SIMPLE]: SIMPLE_CODE,
  [STORAGE]: STORAGE_CODE,
  [RETURNER]: RETURNER_CODE,
  [CALLER]: CALLER_CODE,
  [SLOT7_WRITER]: SLOT7_WRITER_CODE,
  [DELEGATOR]: DELEGATOR_CODE,
  [UNDERFLOW]: UNDERFLOW_CODE,
  [REVERTER]: REVERTER_CODE,
  [INVALID_OP]: INVALID_OP_CODE,
  [LOOP]: LOOP_CODE,
  [LOOP_CALLER]: LOOP_CALLER_CODE,
  [NAMES]: NAMES_CODE,
  [RUNS_OFF]: RUNS_OFF_CODE,
  [REFUSED_CALLER]: REFUSED_CALLER_CODE,
  [MEMORY_GROWER]: MEMORY_GROWER_CODE,
  [CREATOR]: CREATOR_CODE,
};

const DEFAULTS: StructLoggerConfig = { disableStack: false, disableStorage: false, enableMemory: false, enableReturnData: false, limit: 0 };

function cancun(): Common {
  return createCustomCommon({ chainId: 1337 }, Mainnet, { hardfork: Hardfork.Cancun, customCrypto: nativeCrypto });
}

async function freshVm(common: Common): Promise<VM> {
  const vm = await createVM({ common });
  const state = vm.stateManager;
  await state.checkpoint();
  await state.putAccount(SENDER, new Account(0n, 10n ** 21n));
  for (const [address, code] of Object.entries(CODES)) {
    const where = createAddressFromString(address);
    await state.putAccount(where, new Account(0n, 0n));
    await state.putCode(where, hexToBytes(`0x${code}`));
  }
  await state.putStorage(createAddressFromString(STORAGE), hexToBytes(`0x${'2'.padStart(64, '0')}`), hexToBytes('0x07'));
  await state.commit();
  return vm;
}

interface TxSpec {
  to: string | undefined;
  data?: string;
  gasLimit?: bigint;
  value?: bigint;
}

/** Traces one signed legacy transaction on a fresh VM; returns the result and the logger. */
async function trace(spec: TxSpec, config: Partial<StructLoggerConfig> = {}): Promise<{ result: JsonObject; logger: StructLogger; gasUsed: bigint }> {
  const logger = new StructLogger({ ...DEFAULTS, ...config });
  const traced = await traceWith(spec, logger);
  if (!(traced.result instanceof RawJson)) throw new Error('the struct logger answers with its JSON text');
  return { result: JSON.parse(traced.result.text) as JsonObject, logger, gasUsed: traced.run.totalGasSpent };
}

/** Runs one signed legacy transaction on a fresh VM with `tracer` attached. */
async function traceWith(spec: TxSpec, tracer: Tracer): ReturnType<typeof traceTransaction> {
  const common = cancun();
  const vm = await freshVm(common);
  const block = createBlock({ header: { number: 1n, timestamp: 1n, gasLimit: 30_000_000n, baseFeePerGas: 7n, excessBlobGas: 0n, blobGasUsed: 0n } }, { common });
  const tx = createLegacyTx(
    { to: spec.to === undefined ? undefined : createAddressFromString(spec.to), data: hexToBytes((spec.data ?? '0x') as `0x${string}`), gasLimit: spec.gasLimit ?? 200_000n, gasPrice: 10n, value: spec.value ?? 0n, nonce: 0n },
    { common },
  ).sign(SENDER_KEY);
  return traceTransaction(vm, tx, block, tracer);
}

/** Index of the last entry matching `test`, or -1. */
function lastIndexWhere(logs: JsonObject[], test: (entry: JsonObject) => boolean): number {
  for (let i = logs.length - 1; i >= 0; i--) if (test(logs[i]!)) return i;
  return -1;
}

function logsOf(result: JsonObject): JsonObject[] {
  return result.structLogs as JsonObject[];
}

const FIELD_ORDER = ['pc', 'op', 'gas', 'gasCost', 'depth', 'error', 'stack', 'returnData', 'memory', 'storage', 'refund'];

/** Checks what every struct-logger answer must satisfy: the spec schema, field order and the byte tally. */
function checkShape(t: Test, result: JsonObject, logger: StructLogger): void {
  t.same(violations(result, TRACE_SCHEMA), [], 'the result satisfies OpcodeTransactionTrace');
  t.same(Object.keys(result), ['gas', 'failed', 'returnValue', 'structLogs'], 'result keys in order');
  const misordered = logsOf(result).filter((entry) => {
    const positions = Object.keys(entry).map((key) => FIELD_ORDER.indexOf(key));
    return positions.some((p, i) => p < 0 || (i > 0 && p <= positions[i - 1]!));
  });
  t.same(misordered, [], 'entry keys are a subsequence of pc, op, gas, gasCost, depth, error, stack, returnData, memory, storage, refund');
  t.equal(logger.encodedBytes(), JSON.stringify(result.structLogs).length, 'the tracked size equals the encoded structLogs');
}

// ---------------------------------------------------------------------------------------------

t.test('a plain value transfer: gas 21000, no steps', async (t) => {
  const { result, logger } = await trace({ to: EOA, value: 5n });
  t.equal(JSON.stringify(result), '{"gas":21000,"failed":false,"returnValue":"0x","structLogs":[]}');
  checkShape(t, result, logger);
});

t.test('default options: pc, op, gas, gasCost, depth and the stack as 0x quantities', async (t) => {
  const { result, logger, gasUsed } = await trace({ to: SIMPLE });
  checkShape(t, result, logger);
  t.equal(result.gas, Number(gasUsed), 'gas is the receipt gas, as a number');
  t.equal(result.failed, false);
  t.equal(result.returnValue, `0x${'2a'.padStart(64, '0')}`, 'returnValue is the returned data');
  const logs = logsOf(result);
  t.same(logs.map((l) => [l.pc, l.op]), [[0, 'PUSH1'], [2, 'PUSH1'], [4, 'MSTORE'], [5, 'PUSH1'], [7, 'PUSH1'], [9, 'RETURN']]);
  t.same(logs.map((l) => l.stack), [[], ['0x2a'], ['0x2a', '0x0'], [], ['0x20'], ['0x20', '0x0']], 'stack bottom to top, before the op');
  t.same(logs.map((l) => l.gasCost), [3, 3, 6, 3, 3, 0], 'MSTORE includes its memory expansion');
  t.ok(logs.every((l) => l.depth === 1), 'the top frame is depth 1');
  for (let i = 1; i < logs.length; i++) t.equal(logs[i]!.gas, (logs[i - 1]!.gas as number) - (logs[i - 1]!.gasCost as number), `gas before step ${i}`);
  t.equal(logs[0]!.gas, 200_000 - 21_000, 'the first step has the gas after intrinsic gas');
  t.ok(logs.every((l) => !('memory' in l) && !('storage' in l) && !('returnData' in l) && !('refund' in l) && !('error' in l)), 'nothing optional by default');
});

t.test('disableStack omits stack', async (t) => {
  const { result, logger } = await trace({ to: SIMPLE }, { disableStack: true });
  checkShape(t, result, logger);
  t.ok(logsOf(result).every((l) => !('stack' in l)));
});

t.test('enableMemory: 0x-prefixed 32-byte words, before the op expands memory, absent while empty', async (t) => {
  const { result, logger } = await trace({ to: SIMPLE }, { enableMemory: true });
  checkShape(t, result, logger);
  const logs = logsOf(result);
  t.same(logs.slice(0, 3).map((l) => 'memory' in l), [false, false, false], 'no memory key up to and including the expanding MSTORE');
  t.same(logs[3]!.memory, [`0x${'2a'.padStart(64, '0')}`], 'the word MSTORE wrote');
  t.same(logs[5]!.memory, [`0x${'2a'.padStart(64, '0')}`]);
});

t.test('storage: only on SLOAD/SSTORE, cumulative per contract, keys sorted, SSTORE shows the new value', async (t) => {
  const { result, logger } = await trace({ to: STORAGE });
  checkShape(t, result, logger);
  const word = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
  const storageSteps = logsOf(result).filter((l) => 'storage' in l);
  t.same(storageSteps.map((l) => l.op), ['SSTORE', 'SSTORE', 'SLOAD', 'SSTORE']);
  t.same(storageSteps.map((l) => l.storage), [
    { [word(3)]: word(5) },
    { [word(1)]: word(9), [word(3)]: word(5) },
    { [word(1)]: word(9), [word(2)]: word(7), [word(3)]: word(5) },
    { [word(1)]: word(0), [word(2)]: word(7), [word(3)]: word(5) },
  ]);
  t.same(Object.keys(storageSteps[2]!.storage as JsonObject), [word(1), word(2), word(3)], 'keys in sorted order');
  const other = logsOf(result).filter((l) => l.op !== 'SLOAD' && l.op !== 'SSTORE');
  t.ok(other.every((l) => !('storage' in l)), 'absent on every other op');
  const disabled = await trace({ to: STORAGE }, { disableStorage: true });
  t.ok(logsOf(disabled.result).every((l) => !('storage' in l)), 'disableStorage omits it');
});

t.test('refund: the running refund counter, present only when non-zero', async (t) => {
  const { result } = await trace({ to: STORAGE });
  const logs = logsOf(result);
  const clearing = lastIndexWhere(logs, (l) => l.op === 'SSTORE');
  t.ok(logs.slice(0, clearing).every((l) => !('refund' in l)), 'no refund key before slot 1 is reset to its original value');
  // EIP-2200/3529: restoring an originally-zero slot refunds SSTORE_SET - WARM_READ = 19900. The
  // SSTORE's gas function books it, and geth reads the counter after that, so the SSTORE shows it.
  t.same(logs.slice(clearing).map((l) => [l.op, l.refund]), [['SSTORE', 19_900], ['STOP', 19_900]]);
});

t.test('storage is keyed by the account whose storage runs, across DELEGATECALL', async (t) => {
  const { result, logger } = await trace({ to: DELEGATOR });
  checkShape(t, result, logger);
  const word = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
  const steps = logsOf(result).filter((l) => 'storage' in l);
  t.same(steps.map((l) => [l.op, l.depth]), [['SSTORE', 1], ['SSTORE', 2], ['SLOAD', 1]]);
  t.same(steps[1]!.storage, { [word(1)]: word(1), [word(7)]: word(0x2a) }, "the delegate's SSTORE joins the caller's slots");
  t.same(steps[2]!.storage, { [word(1)]: word(1), [word(7)]: word(0x2a) }, 'SLOAD reads the value the delegate wrote');
});

t.test('CALL: gasCost includes the gas handed over, the callee runs at depth 2, returnData with enableReturnData', async (t) => {
  const plain = await trace({ to: CALLER });
  t.ok(logsOf(plain.result).every((l) => !('returnData' in l)), 'no returnData without enableReturnData');
  const { result, logger } = await trace({ to: CALLER }, { enableReturnData: true });
  checkShape(t, result, logger);
  const logs = logsOf(result);
  const call = logs.findIndex((l) => l.op === 'CALL');
  const callee = logs[call + 1]!;
  t.equal(callee.depth, 2, 'callee depth');
  t.equal(callee.gas, 0xffff, 'the callee starts with the requested gas');
  t.equal(logs[call]!.gasCost, 2600 + 0xffff, 'cold account access plus the forwarded gas');
  t.ok(logs.slice(0, call + 1).every((l) => !('returnData' in l)), 'no returnData before any call returned');
  t.ok(logs.filter((l) => l.depth === 2).every((l) => !('returnData' in l)), "the callee's own buffer is empty");
  const after = logs.slice(call + 1).filter((l) => l.depth === 1);
  t.same(after.map((l) => l.op), ['POP', 'RETURNDATASIZE', 'POP', 'STOP']);
  t.ok(after.every((l) => l.returnData === `0x${'beef'.padStart(64, '0')}`), 'the caller sees what the callee returned');
});

t.test('returnData: a refused call empties the buffer', async (t) => {
  const { result, logger } = await trace({ to: REFUSED_CALLER }, { enableReturnData: true });
  checkShape(t, result, logger);
  const top = logsOf(result).filter((l) => l.depth === 1);
  const calls = top.flatMap((l, i) => (l.op === 'CALL' ? [i] : []));
  t.equal(calls.length, 2);
  t.equal(top[calls[0]! + 1]!.returnData, `0x${'beef'.padStart(64, '0')}`, 'after the first call');
  t.equal(top[calls[1]!]!.returnData, `0x${'beef'.padStart(64, '0')}`, 'still there at the refused CALL');
  t.ok(top.slice(calls[1]! + 1).every((l) => !('returnData' in l)), 'gone after it');
  t.same(top[top.length - 2]!.stack, ['0x0'], 'RETURNDATASIZE agrees: 0');
});

t.test('error: set on a step that fails its gas check, absent elsewhere', async (t) => {
  // 21000 intrinsic + two PUSH1s leaves 2 gas for MSTORE (3 + 3 for memory).
  const { result, logger, gasUsed } = await trace({ to: SIMPLE, gasLimit: 21_008n });
  checkShape(t, result, logger);
  const logs = logsOf(result);
  t.same(logs.map((l) => [l.op, l.error ?? null]), [['PUSH1', null], ['PUSH1', null], ['MSTORE', 'out of gas']]);
  t.same(Object.keys(logs[2]!), ['pc', 'op', 'gas', 'gasCost', 'depth', 'error', 'stack'], 'error sits after depth');
  t.equal(result.failed, true);
  t.equal(result.returnValue, '0x', 'no return value after a non-revert failure');
  t.equal(result.gas, Number(gasUsed));
  t.equal(result.gas, 21_008, 'all gas is used');
});

t.test('error: stack underflow names the stack sizes', async (t) => {
  const { result, logger } = await trace({ to: UNDERFLOW });
  checkShape(t, result, logger);
  t.same(logsOf(result).map((l) => [l.op, l.error]), [['ADD', 'stack underflow (0 <=> 2)']]);
  t.equal(result.failed, true);
});

t.test('error: not set for failures while the op executes (REVERT, INVALID)', async (t) => {
  const reverted = await trace({ to: REVERTER });
  checkShape(t, reverted.result, reverted.logger);
  t.ok(logsOf(reverted.result).every((l) => !('error' in l)), 'REVERT leaves no error field');
  t.equal(reverted.result.failed, true, 'a revert is a failure');
  t.equal(reverted.result.returnValue, `0x${'dead'.padStart(64, '0')}`, 'returnValue carries the revert data');
  const invalid = await trace({ to: INVALID_OP });
  checkShape(t, invalid.result, invalid.logger);
  t.same(logsOf(invalid.result).map((l) => [l.op, l.error ?? null]), [['PUSH1', null], ['INVALID', null]]);
  t.equal(invalid.result.failed, true);
});

t.test('error: a callee running out of gas marks its last step only; the caller goes on', async (t) => {
  const { result, logger } = await trace({ to: LOOP_CALLER });
  checkShape(t, result, logger);
  const logs = logsOf(result);
  const failing = logs.filter((l) => 'error' in l);
  t.equal(failing.length, 1, 'one step carries an error');
  t.equal(failing[0]!.error, 'out of gas');
  t.equal(failing[0]!.depth, 2);
  t.equal(logs.indexOf(failing[0]!), lastIndexWhere(logs, (l) => l.depth === 2), "it is the callee's last step");
  t.same(logs.slice(-2).map((l) => [l.op, l.depth]), [['POP', 1], ['STOP', 1]]);
  t.equal(result.failed, false);
});

t.test("op names are geth's: DIFFICULTY after the merge, 'opcode 0x.. not defined'", async (t) => {
  const { result, logger } = await trace({ to: NAMES });
  checkShape(t, result, logger);
  t.same(logsOf(result).map((l) => l.op), ['DIFFICULTY', 'POP', 'opcode 0xc not defined']);
});

t.test('a frame that runs off the end of its code gets the STOP geth reads there', async (t) => {
  const { result, logger } = await trace({ to: RUNS_OFF });
  checkShape(t, result, logger);
  const logs = logsOf(result);
  t.same(logs.map((l) => [l.pc, l.op]), [[0, 'PUSH1'], [2, 'POP'], [3, 'STOP']]);
  t.equal(logs[2]!.gas, (logs[1]!.gas as number) - 2, 'gas after POP');
  t.same(logs[2]!.stack, []);
});

t.test('a creation returns the runtime code as returnValue', async (t) => {
  // mstore(0, 0xabcd); return(30, 2)
  const { result, logger } = await trace({ to: undefined, data: '0x61abcd6000526002601ef3' });
  checkShape(t, result, logger);
  t.equal(result.returnValue, '0xabcd');
  t.equal(result.failed, false);
});

t.test('limit: at most that many steps; gas, failed and returnValue unchanged', async (t) => {
  const full = await trace({ to: STORAGE });
  const limited = await trace({ to: STORAGE }, { limit: 3 });
  checkShape(t, limited.result, limited.logger);
  t.equal(logsOf(limited.result).length, 3);
  t.same(logsOf(limited.result), logsOf(full.result).slice(0, 3), 'the first steps, unchanged');
  t.same({ ...limited.result, structLogs: null }, { ...full.result, structLogs: null });
});

t.test('maxBytes: a trace whose structLogs exceed the cap fails with TraceTooLargeError', async (t) => {
  const everything: Partial<StructLoggerConfig> = { enableMemory: true, enableReturnData: true };
  for (const target of [STORAGE, CALLER, LOOP_CALLER, DELEGATOR, UNDERFLOW]) {
    const { result, logger } = await trace({ to: target }, everything);
    const size = JSON.stringify(result.structLogs).length;
    t.equal(logger.encodedBytes(), size, `${target}: the size is tracked exactly`);
    const atCap = await trace({ to: target }, { ...everything, maxBytes: size });
    t.same(atCap.result, result, `${target}: exactly the cap passes`);
    await t.rejects(trace({ to: target }, { ...everything, maxBytes: size - 1 }), TraceTooLargeError, `${target}: one byte less fails`);
  }
  const error = await trace({ to: STORAGE }, { maxBytes: 100 }).catch((e: unknown) => e);
  t.ok(error instanceof TraceTooLargeError);
  const message = (error as Error).message;
  t.match(message, /100 bytes/, 'the message names the cap');
  t.match(message, /`limit`/, 'and suggests limit');
  t.match(message, /disableStack/, 'and dropping fields');
  t.match(message, /callTracer/, 'and a narrower tracer');
  const withLimit = await trace({ to: STORAGE }, { maxBytes: 100, limit: 1 });
  t.equal(logsOf(withLimit.result).length, 1, 'limit keeps a trace under the cap');
});

/** The text encoder and the object-based reference on one execution, fed the same hooks. */
class SideBySide implements Tracer {
  readonly encoder: StructLogger;
  readonly reference: ReferenceStructLogger;

  constructor(config: StructLoggerConfig) {
    this.encoder = new StructLogger(config);
    this.reference = new ReferenceStructLogger(config);
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    await this.encoder.onOpcode(step);
    await this.reference.onOpcode(step);
  }

  onFault(step: OpcodeStep, error: string): void {
    this.encoder.onFault(step, error);
    this.reference.onFault(step, error);
  }

  onExit(frame: FrameEnd): void {
    this.encoder.onExit(frame);
    this.reference.onExit(frame);
  }

  onTxEnd(end: TxEnd): void {
    this.encoder.onTxEnd(end);
    this.reference.onTxEnd(end);
  }

  result(): JsonValue {
    return null;
  }

  /** Both answers as text, and the encoder's tracked size with the reference's structLogs size. */
  texts(): { encoded: string; reference: string; trackedBytes: number; referenceBytes: number } {
    const reference = this.reference.result() as JsonObject;
    const encoded = this.encoder.result();
    if (!(encoded instanceof RawJson)) throw new Error('the struct logger answers with its JSON text');
    return {
      encoded: encoded.text,
      reference: JSON.stringify(reference),
      trackedBytes: this.encoder.encodedBytes(),
      referenceBytes: JSON.stringify(reference.structLogs).length,
    };
  }
}

/** Option sets the encoder is compared under: every field on, every field off, and limits. */
const COMPARED_CONFIGS: Array<Partial<StructLoggerConfig>> = [
  {},
  { enableMemory: true, enableReturnData: true },
  { disableStack: true, disableStorage: true },
  { enableMemory: true, enableReturnData: true, limit: 7 },
  { limit: 1 },
];

t.test('the text encoder writes exactly what the object-based struct logger serialised', async (t) => {
  const txs: Array<{ name: string; spec: TxSpec }> = [
    ...Object.keys(CODES).map((address) => ({ name: address, spec: { to: address } })),
    { name: 'a creation transaction', spec: { to: undefined, data: `0x${INIT_CODE}` } },
    { name: 'a plain transfer', spec: { to: EOA, value: 5n } },
    { name: 'an out-of-gas loop', spec: { to: LOOP, gasLimit: 30_000n } },
  ];
  const seen = new Set<string>();
  for (const config of COMPARED_CONFIGS) {
    for (const { name, spec } of txs) {
      const both = new SideBySide({ ...DEFAULTS, ...config });
      await traceWith(spec, both);
      const { encoded, reference, trackedBytes, referenceBytes } = both.texts();
      t.equal(encoded, reference, `${name} ${JSON.stringify(config)}: the same text`);
      t.equal(trackedBytes, referenceBytes, `${name} ${JSON.stringify(config)}: the tracked size is the structLogs size`);
      const parsed = JSON.parse(encoded) as JsonObject;
      if (parsed.failed === true) seen.add('failed');
      for (const entry of logsOf(parsed)) {
        for (const key of Object.keys(entry)) seen.add(key);
        if (entry.depth === 2) seen.add('depth 2');
        if (entry.op === 'CREATE') seen.add('CREATE');
        if (entry.op === 'REVERT') seen.add('REVERT');
        if (Array.isArray(entry.memory) && entry.memory.length > 10) seen.add('memory > 10 words');
        if (entry.storage !== undefined && Object.keys(entry.storage as JsonObject).length > 1) seen.add('storage > 1 slot');
      }
    }
  }
  const covered = ['failed', 'error', 'refund', 'storage', 'memory', 'returnData', 'stack', 'depth 2', 'CREATE', 'REVERT', 'memory > 10 words', 'storage > 1 slot'];
  t.same(covered.filter((feature) => !seen.has(feature)), [], 'the transactions exercise every field, reverts, nested frames, creates and memory growth');
});

t.test('the text encoder matches the object-based struct logger on the execution-apis chain', async (t) => {
  const blocks = chainBlocks(3);
  for (const config of COMPARED_CONFIGS) {
    const pairs = await replayChainWith(blocks, () => new SideBySide({ ...DEFAULTS, ...config }));
    t.ok(pairs.length >= 3, 'the chain has transactions to compare');
    for (const [hash, both] of pairs) {
      const { encoded, reference, trackedBytes, referenceBytes } = both.texts();
      t.equal(encoded, reference, `${hash} ${JSON.stringify(config)}: the same text`);
      t.equal(trackedBytes, referenceBytes, `${hash} ${JSON.stringify(config)}: the tracked size`);
    }
  }
});

t.test('a RawJson answer is spliced into a response as it is', async (t) => {
  const { result } = await trace({ to: STORAGE });
  const text = JSON.stringify(result);
  const raw = new RawJson(text);
  t.equal(encodeJson(raw), text, 'at the top level');
  t.equal(encodeJson([{ txHash: '0x01', result: raw }, { txHash: '0x02', result: raw }]), `[{"txHash":"0x01","result":${text}},{"txHash":"0x02","result":${text}}]`, 'inside block entries');
  t.equal(JSON.stringify({ result: raw }), `{"result":${text}}`, 'a plain JSON.stringify parses it back: right, only slower');
  const lookalike = '\u0001raw-json:00:0';
  t.equal(encodeJson({ a: raw, b: lookalike }), `{"a":${text},"b":${JSON.stringify(lookalike)}}`, 'a string that looks like a placeholder stays a string');
  t.throws(() => encodeJson({ a: raw, b: 1n }), TypeError, 'a bigint still fails the encoding');
  const body = Buffer.from(text.slice(10, -10), 'latin1');
  const fromParts = new RawJson({ head: text.slice(0, 10), body, tail: text.slice(-10) });
  t.equal(encodeJson({ result: fromParts }), `{"result":${text}}`, 'text given as head, ASCII bytes and tail reads back whole');
});

t.test('parseTraceConfig reads enableReturnData', async (t) => {
  t.equal(parseTraceConfig({ enableReturnData: true }, 1).structLogger.enableReturnData, true);
  t.equal(parseTraceConfig({ ENABLERETURNDATA: true }, 1).structLogger.enableReturnData, true, 'keys are case-insensitive');
  t.equal(parseTraceConfig(undefined, 1).structLogger.enableReturnData, false);
});

// ---------------------------------------------------------------------------------------------
// The execution-apis test chain: blocks 1-3 replayed from genesis; every recorded struct-logger
// answer about them must come out byte for byte.

const CHAIN_ID = 3503995874084926;
const CHAIN_FORKS: Array<[fromBlock: bigint, fork: Hardfork]> = [[3n, Hardfork.TangerineWhistle], [0n, Hardfork.Homestead]];

function forkOf(number: bigint): Hardfork {
  return CHAIN_FORKS.find(([from]) => number >= from)![1];
}

function chainCommon(fork: Hardfork): Common {
  return createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: fork, customCrypto: nativeCrypto });
}

/** The first `count` blocks of chain.rlp. */
function chainBlocks(count: number): Block[] {
  let rest: Uint8Array = readFileSync(join(SPEC_DIR, 'chain.rlp'));
  const blocks: Block[] = [];
  for (let number = 1n; blocks.length < count; number++) {
    const { data, remainder } = RLP.decode(rest, true) as unknown as { data: Uint8Array[][]; remainder: Uint8Array };
    blocks.push(createBlockFromBytesArray(data as never, { common: chainCommon(forkOf(number)), skipConsensusFormatValidation: true }));
    rest = remainder;
  }
  return blocks;
}

async function genesisVm(): Promise<VM> {
  const genesis = JSON.parse(readFileSync(join(SPEC_DIR, 'genesis.json'), 'utf8')) as { alloc: Record<string, JsonObject> };
  const vm = await createVM({ common: chainCommon(Hardfork.Homestead) });
  const state = vm.stateManager;
  await state.checkpoint();
  for (const [address, entry] of Object.entries(genesis.alloc)) {
    const where = createAddressFromString(address.startsWith('0x') ? address : `0x${address}`);
    await state.putAccount(where, new Account(BigInt((entry.nonce as string | undefined) ?? 0), BigInt(entry.balance as string)));
    if (typeof entry.code === 'string' && entry.code !== '0x') await state.putCode(where, hexToBytes(entry.code as `0x${string}`));
    for (const [slot, value] of Object.entries((entry.storage ?? {}) as Record<string, string>)) {
      await state.putStorage(where, hexToBytes(`0x${slot.replace(/^0x/, '').padStart(64, '0')}`), hexToBytes(value as `0x${string}`));
    }
  }
  await state.commit();
  return vm;
}

/** Replays blocks in order with a fresh tracer per transaction; the tracers by tx hash, in order. */
async function replayChainWith<T extends Tracer>(blocks: Block[], makeTracer: () => T): Promise<Array<[string, T]>> {
  const vm = await genesisVm();
  const out: Array<[string, T]> = [];
  for (const block of blocks) {
    vm.common.setHardfork(forkOf(block.header.number));
    for (const tx of block.transactions as TypedTransaction[]) {
      const tracer = makeTracer();
      await traceTransaction(vm, tx, block, tracer, { skipBlockGasLimitValidation: true, skipHardForkValidation: true });
      out.push([bytesToHex(tx.hash()), tracer]);
    }
  }
  return out;
}

/** Replays blocks in order, tracing each transaction; results keyed by tx hash. */
async function replayChain(blocks: Block[], config: StructLoggerConfig): Promise<Map<string, Json>> {
  const vm = await genesisVm();
  const results = new Map<string, Json>();
  for (const block of blocks) {
    vm.common.setHardfork(forkOf(block.header.number));
    for (const tx of block.transactions as TypedTransaction[]) {
      const traced = await traceTransaction(vm, tx, block, new StructLogger(config), { skipBlockGasLimitValidation: true, skipHardForkValidation: true });
      results.set(bytesToHex(tx.hash()), traced.result);
    }
  }
  return results;
}

interface RecordedCall {
  file: string;
  method: string;
  params: Json[];
  result: Json;
}

/** Request/answer pairs of the .io files that have a result (errors are the RPC layer's business). */
function recordedCalls(): RecordedCall[] {
  const calls: RecordedCall[] = [];
  for (const folder of ['debug_traceBlockByNumber', 'debug_traceBlockByHash', 'debug_traceTransaction']) {
    const dir = join(SPEC_DIR, folder);
    for (const file of ['trace-block-memory-encoding.io', 'trace-block-return-data-behavior.io', 'trace-block-storage-encoding.io', 'trace-block-storage-snapshot-timing.io', 'trace-block-with-transactions.io', 'trace-contract-call.io', 'trace-legacy-transfer.io']) {
      let text: string;
      try {
        text = readFileSync(join(dir, file), 'utf8');
      } catch {
        continue;
      }
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i]!.startsWith('>> ')) continue;
        const request = JSON.parse(lines[i]!.slice(3)) as { method: string; params: Json[] };
        const answer = JSON.parse(lines[i + 1]!.slice(3)) as { result?: Json };
        if (answer.result !== undefined) calls.push({ file: `${folder}/${file}`, method: request.method, params: request.params, result: answer.result });
      }
    }
  }
  return calls;
}

t.test("the execution-apis chain: geth's recorded struct-logger answers, byte for byte", async (t) => {
  const blocks = chainBlocks(3);
  const byNumber = new Map<string, Block>(blocks.map((b) => [`0x${b.header.number.toString(16)}`, b]));
  const byHash = new Map<string, Block>(blocks.map((b) => [bytesToHex(b.hash()), b]));
  const calls = recordedCalls();
  t.equal(calls.length, 9, 'every recorded answer of the seven files is checked');
  const replays = new Map<string, Map<string, Json>>();
  for (const call of calls) {
    const options = parseTraceConfig(call.params[1], 1);
    const key = JSON.stringify(options.structLogger);
    let traced = replays.get(key);
    if (traced === undefined) replays.set(key, (traced = await replayChain(blocks, options.structLogger)));
    let actual: Json;
    if (call.method === 'debug_traceTransaction') {
      actual = traced.get(call.params[0] as string) ?? null;
    } else {
      const block = call.method === 'debug_traceBlockByNumber' ? byNumber.get(call.params[0] as string) : byHash.get(call.params[0] as string);
      t.ok(block, `${call.file}: the block is among the replayed ones`);
      actual = block!.transactions.map((tx) => ({ txHash: bytesToHex(tx.hash()), result: traced!.get(bytesToHex(tx.hash())) ?? null }));
    }
    // encodeJson splices the struct logger's text in, as the RPC layer writes the response.
    t.equal(encodeJson(actual), JSON.stringify(call.result), `${call.file} ${JSON.stringify(call.params)}`);
    const parsed = JSON.parse(encodeJson(actual)!) as Json;
    const results = Array.isArray(parsed) ? (parsed as JsonObject[]).map((entry) => entry.result as JsonObject) : [parsed as JsonObject];
    t.same(results.flatMap((result) => violations(result, TRACE_SCHEMA)), [], `${call.file}: schema-valid`);
  }
});

// ---------------------------------------------------------------------------------------------

t.test('erc7562Tracer: tracerConfig is read as geth reads it', async (t) => {
  const fixture = JSON.parse(readFileSync(join(FIXTURE_ROOT, 'erc7562_tracer', 'erc7562Tracer.test_simple.json'), 'utf8')) as GethFixture;
  const counted = (await runFixture({ ...fixture, tracerConfig: { ignoredOpcodes: [] } }, 'erc7562Tracer')).result as JsonObject;
  t.ok('0x60' in (counted.usedOpcodes as JsonObject), 'an explicit empty ignoredOpcodes counts PUSH1 too');
  const onlyPush1 = (await runFixture({ ...fixture, tracerConfig: { ignoredOpcodes: ['0x60'] } }, 'erc7562Tracer')).result as JsonObject;
  t.notOk('0x60' in (onlyPush1.usedOpcodes as JsonObject), 'a listed opcode is left out');
  t.ok('0x1' in (onlyPush1.usedOpcodes as JsonObject) || '0x80' in (onlyPush1.usedOpcodes as JsonObject), 'and the default list no longer applies');
  t.throws(() => createTracer('erc7562Tracer', { withLog: 'yes' }), TracerConfigError);
  t.throws(() => createTracer('erc7562Tracer', { ignoredOpcodes: [96] }), TracerConfigError);
  t.throws(() => createTracer('erc7562Tracer', { stackTopItemsSize: 'three' }), TracerConfigError);
});

t.test("erc7562Tracer reproduces geth's erc7562_tracer fixtures", async (t) => {
  const names = fixtureNames('erc7562_tracer');
  t.equal(names.length, 3);
  for (const name of names) {
    const outcome = await checkFixture('erc7562_tracer', name);
    t.equal(outcome.actual, outcome.expected, `${name} output matches geth`);
    t.ok(outcome.passed, `${name} passes${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`);
  }
});
