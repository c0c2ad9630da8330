/**
 * JavaScript tracers in the QuickJS sandbox: geth's tracer API (log, db, frames, ctx,
 * helpers, result encoding), geth's error texts, the bundled legacy tracers on geth's
 * fixtures, and the bounds (deadline, heap, stack, no host access) with the host still
 * able to trace afterwards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, createAddressFromPrivateKey, createAddressFromString, generateAddress } from '@ethereumjs/util';
import { createVM } from '@ethereumjs/vm';
import t, { type Test } from 'tap';

import {
  JsTracerCompileError,
  JsTracerMemoryError,
  JsTracerRuntimeError,
  JsTracerStackError,
  JsTracerTimeoutError,
  createTracer,
  hexBytes,
  loadJsTracerEngine,
  traceTransaction,
  type JsonValue,
  type TracerLimits,
} from '../../src/trace/index.js';
import { FIXTURE_ROOT, checkFixture, fixtureNames, runFixture, type GethFixture } from './fixtures-harness.js';

await loadJsTracerEngine();

const KEY = hexBytes('0x' + '11'.repeat(32));
const SENDER = createAddressFromPrivateKey(KEY);
const CONTRACT = createAddressFromString('0x' + 'c0'.repeat(20));

/** A loop of `iterations` rounds of 7 opcodes (JUMPDEST PUSH1 SWAP1 SUB DUP1 PUSH1 JUMPI), then STOP. */
function loopCode(iterations: number): Uint8Array {
  return hexBytes(`0x61${iterations.toString(16).padStart(4, '0')}5b600190038060035700`);
}

/** Runs one call to a contract holding `code` (with `storage`) under `tracer` on a fresh VM. */
async function traceCode(
  tracer: string,
  code: Uint8Array,
  options: { storage?: Array<[string, string]>; config?: JsonValue; limits?: TracerLimits; value?: bigint } = {},
): Promise<JsonValue> {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
  const vm = await createVM({ common });
  await vm.stateManager.putAccount(SENDER, new Account(0n, 10n ** 20n));
  await vm.stateManager.putAccount(CONTRACT, new Account(0n, 1000n));
  await vm.stateManager.putCode(CONTRACT, code);
  for (const [slot, value] of options.storage ?? []) {
    await vm.stateManager.putStorage(CONTRACT, hexBytes(slot.replace(/^0x/, '').padStart(64, '0')), hexBytes(value));
  }
  const tx = createLegacyTx({ to: CONTRACT, gasLimit: 10_000_000n, gasPrice: 10n, value: options.value ?? 0n }, { common }).sign(KEY);
  const block = createBlock({ header: { number: 1n, baseFeePerGas: 7n, gasLimit: 30_000_000n } }, { common });
  const traced = await traceTransaction(vm, tx, block, createTracer(tracer, options.config ?? {}, options.limits), {
    skipBlockGasLimitValidation: true,
  });
  return traced.result;
}

function fixture(folder: string, name: string): GethFixture {
  return JSON.parse(readFileSync(join(FIXTURE_ROOT, folder, name), 'utf8')) as GethFixture;
}

const OPCOUNT = '{ n: 0, step: function (log, db) { this.n++; }, fault: function () {}, result: function () { return this.n; } }';

/** The host can still run a tracer (used after each failure). */
async function hostStillTraces(t: Test): Promise<void> {
  t.equal(await traceCode(OPCOUNT, loopCode(3)), 1 + 3 * 7 + 1, 'a later tracer still runs (PUSH2, 3 rounds of 7, STOP)');
}

t.test('bundled legacy tracers reproduce geth fixtures', async (t) => {
  for (const folder of ['call_tracer_legacy', 'prestate_tracer_legacy']) {
    const names = fixtureNames(folder);
    t.ok(names.length > 0, `${folder} has fixtures`);
    for (const name of names) {
      const outcome = await checkFixture(folder, name);
      t.equal(outcome.actual, outcome.expected, `${folder}/${name} output matches geth`);
      t.ok(outcome.passed, `${folder}/${name} passes${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`);
    }
  }
});

t.test('an opcode counter sees every step with geth names, gas and 1-based depth', async (t) => {
  const source = `{
    ops: {}, count: 0, depths: {},
    step: function (log, db) {
      this.count++;
      var name = log.op.toString();
      this.ops[name] = (this.ops[name] || 0) + 1;
      this.depths[log.getDepth()] = true;
      if (name === 'SUB' && this.firstSub === undefined) this.firstSub = { pc: log.getPC(), cost: log.getCost(), top: log.stack.peek(0).toString(), size: log.stack.length(), push: log.op.isPush(), number: log.op.toNumber() };
    },
    fault: function () {},
    result: function (ctx) { return { count: this.count, ops: this.ops, depths: Object.keys(this.depths), firstSub: this.firstSub, gasUsed: ctx.gasUsed, type: ctx.type }; },
  }`;
  const result = (await traceCode(source, loopCode(5))) as { count: number; ops: Record<string, number>; depths: string[]; firstSub: JsonValue; gasUsed: number; type: string };
  t.equal(result.count, 1 + 5 * 7 + 1);
  t.same(result.ops, { PUSH2: 1, JUMPDEST: 5, PUSH1: 10, SWAP1: 5, SUB: 5, DUP1: 5, JUMPI: 5, STOP: 1 });
  t.same(result.depths, ['1']);
  t.same(result.firstSub, { pc: 7, cost: 3, top: '5', size: 2, push: false, number: 3 });
  t.equal(result.type, 'CALL');
  t.ok(result.gasUsed > 21000, 'ctx.gasUsed is the receipt gas');
});

t.test('enter and exit see every sub-frame, not the top frame', async (t) => {
  const f = fixture('call_tracer', 'deep_calls.json');
  type Frame = { type: string; gasUsed: string; calls?: Frame[] };
  const frames: Array<[string, number]> = [];
  const walk = (frame: Frame): void => {
    for (const child of frame.calls ?? []) {
      frames.push([child.type, Number(BigInt(child.gasUsed))]);
      walk(child);
    }
  };
  walk(f.result as Frame);
  const source = `{
    seen: [], open: [],
    enter: function (frame) { var entry = [frame.getType(), 0]; this.seen.push(entry); this.open.push(entry); if (frame.getValue() !== undefined) frame.getValue().toString(16); toHex(frame.getFrom()); toHex(frame.getTo()); toHex(frame.getInput()); frame.getGas(); },
    exit: function (result) { this.open.pop()[1] = result.getGasUsed(); toHex(result.getOutput()); result.getError(); },
    fault: function () {},
    result: function () { return this.seen; },
  }`;
  const { result } = await runFixture({ ...f, tracerConfig: {} }, source);
  t.same(result, frames, 'types and gasUsed in entry order match geth callTracer frames');
});

t.test('fault sees the failing opcode with geth error text', async (t) => {
  const source = `{
    faults: [],
    step: function () {},
    fault: function (log, db) { this.faults.push([log.op.toString(), log.getError(), log.getDepth()]); },
    result: function (ctx) { return { faults: this.faults, error: ctx.error }; },
  }`;
  const { result } = await runFixture({ ...fixture('call_tracer', 'throw.json'), tracerConfig: {} }, source);
  t.same(result, { faults: [['JUMP', 'invalid jump destination', 1]], error: 'invalid jump destination' });
});

t.test('db reads live state at the moment of the step', async (t) => {
  // PUSH1 2a PUSH1 01 SSTORE PUSH1 01 SLOAD ADDRESS BALANCE STOP
  const code = hexBytes('0x602a600155600154303100');
  const source = `{
    reads: {},
    step: function (log, db) {
      var name = log.op.toString();
      var self = log.contract.getAddress();
      if (name === 'SSTORE' || name === 'SLOAD') this.reads[name] = toHex(db.getState(self, toWord('0x01')));
      if (name === 'BALANCE') {
        this.reads.balance = db.getBalance(self).toString();
        this.reads.nonce = db.getNonce(toAddress('${SENDER.toString()}'));
        this.reads.code = toHex(db.getCode(self));
        this.reads.exists = db.exists(self);
      }
    },
    fault: function () {},
    result: function () { return this.reads; },
  }`;
  const result = await traceCode(source, code, { storage: [['0x01', '0x07']], value: 5n });
  t.same(result, {
    SSTORE: `0x${'07'.padStart(64, '0')}`,
    SLOAD: `0x${'2a'.padStart(64, '0')}`,
    balance: '1005',
    nonce: 1,
    code: '0x602a600155600154303100',
    exists: true,
  });
});

t.test('helper globals behave as geth documents', async (t) => {
  const from = '0x' + '12'.repeat(20);
  const source = `{
    step: function () {}, fault: function () {},
    result: function (ctx) {
      return {
        word: toHex(toWord('0x1234')),
        address: toHex(toAddress('0xff' + '${'00'.repeat(19)}' + '01')),
        contract: toHex(toContract(toAddress('${from}'), 7)),
        contract2: toHex(toContract2(toAddress('${from}'), '0x00', new Uint8Array([0]))),
        pre: isPrecompiled(toAddress('0x01')), notPre: isPrecompiled(toAddress('0x' + '${'ab'.repeat(20)}')),
        slice: toHex(slice(new Uint8Array([1, 2, 3, 4]), 1, 3)),
        big: bigInt('ff', 16).add(1).multiply(bigInt(2)).toString(16),
        cmp: [bigInt(5).compare(7), bigInt(7).equals(7), bigInt(-3).abs().toString()],
        badBuffer: (function () { try { toHex('0x12'); return 'no error'; } catch (e) { return e.message; } })(),
      };
    },
  }`;
  const result = await traceCode(source, loopCode(1));
  t.same(result, {
    word: `0x${'1234'.padStart(64, '0')}`,
    address: `0x${'00'.repeat(19)}01`,
    contract: `0x${Buffer.from(generateAddress(hexBytes(from), hexBytes('0x07'))).toString('hex')}`,
    contract2: (result as { contract2: string }).contract2,
    pre: true,
    notPre: false,
    slice: '0x0203',
    big: '200',
    cmp: [-1, true, '3'],
    badBuffer: 'invalid buffer type',
  });
  t.match((result as { contract2: string }).contract2, /^0x[0-9a-f]{40}$/);
});

t.test('results are JSON-encoded as geth does (bytes as index objects, bigInt as decimal strings)', async (t) => {
  const source = `{ step: function () {}, fault: function () {}, setup: function (cfg) { this.cfg = JSON.parse(cfg); },
    result: function (ctx) { return { bytes: new Uint8Array([1, 255]), big: bigInt(5), value: ctx.value, cfg: this.cfg, none: undefined, price: ctx.gasPrice }; } }`;
  const result = await traceCode(source, loopCode(1), { config: { answer: 42 }, value: 3n });
  t.equal(JSON.stringify(result), '{"bytes":{"0":1,"1":255},"big":"5","value":"3","cfg":{"answer":42},"price":"10"}');
});

t.test('construction errors carry geth wording', async (t) => {
  t.throws(() => createTracer('{ step: function( }'), JsTracerCompileError);
  t.throws(() => createTracer('{ step: function( }'), { message: /^SyntaxError: / });
  t.throws(() => createTracer('{ fault: function () {} }'), { message: 'trace object must expose a function result()' });
  t.throws(() => createTracer('{ result: function () {} }'), { message: 'trace object must expose a function fault()' });
  t.throws(() => createTracer('{ result: function () {}, fault: function () {}, enter: function () {} }'), {
    message: 'trace object must expose either both or none of enter() and exit()',
  });
  t.throws(() => createTracer('fooTracer'), { message: 'ReferenceError: fooTracer is not defined' });
  t.throws(() => createTracer('{ result: function () {}, fault: function () {}, setup: function () { throw new Error("bad config"); } }'), {
    message: /^Error: bad config at setup \(<eval>:1:\d+\)    in server-side tracer function 'setup'$/,
  });
});

t.test('an exception in step fails the trace with the JS position and function name', async (t) => {
  const source = '{ step: function (log) {\n  log.stack.peek(-1);\n}, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(source, loopCode(1)), {
    message: "tracer accessed out of bound stack: size 0, index -1 at step (<eval>:2:17)    in server-side tracer function 'step'",
  });
  const typeError = '{ step: function (log) { log.nothing.here(); }, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(typeError, loopCode(1)), JsTracerRuntimeError);
  await t.rejects(traceCode(typeError, loopCode(1)), { message: /^TypeError: .* at step \(<eval>:1:\d+\)    in server-side tracer function 'step'$/ });
  await hostStillTraces(t);
});

t.test('an endless loop stops at the deadline with geth timeout text', async (t) => {
  const source = '{ step: function () { while (true) {} }, fault: function () {}, result: function () { return 1; } }';
  // The loop never ends by itself: only the deadline can end this trace.
  await t.rejects(traceCode(source, loopCode(1), { limits: { deadlineMs: Date.now() + 300 } }), JsTracerTimeoutError);
  await t.rejects(traceCode(source, loopCode(1), { limits: { deadlineMs: Date.now() + 300 } }), {
    message: /^execution timeout at step \(<eval>:1:\d+\)    in server-side tracer function 'step'$/,
  });
  const slowEvm = '{ step: function () { var x = 0; for (var i = 0; i < 2000; i++) x += i; }, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(slowEvm, loopCode(20000), { limits: { deadlineMs: Date.now() + 300 } }), { message: /^execution timeout/ });
  await hostStillTraces(t);
});

t.test('a memory bomb stops with a memory error', async (t) => {
  const source = '{ step: function () { var a = []; while (true) a.push(new Array(100000).fill(1.5)); }, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(source, loopCode(1), { limits: { maxHeapBytes: 32 * 1024 * 1024 } }), JsTracerMemoryError);
  const strings = '{ step: function () { var s = "x"; var keep = []; while (true) { s = s + s; keep.push(s + "y"); if (s.length > 1e7) s = "x"; } }, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(strings, loopCode(1), { limits: { maxHeapBytes: 32 * 1024 * 1024 } }), JsTracerMemoryError);
  await hostStillTraces(t);
});

t.test('deep recursion stops with a stack error', async (t) => {
  const source = '{ deep: function (n) { return this.deep(n + 1) + 1; }, step: function () { this.deep(0); }, fault: function () {}, result: function () { return 1; } }';
  await t.rejects(traceCode(source, loopCode(1)), JsTracerStackError);
  await t.rejects(traceCode(source, loopCode(1)), { message: /stack limit of 262144 bytes/ });
  await hostStillTraces(t);
});

t.test('a tracer cannot reach the host', async (t) => {
  const source = `{ step: function () {}, fault: function () {},
    result: function () {
      var fnCtor = (function () {}).constructor;
      return [typeof require, typeof process, typeof globalThis.fetch, typeof module, typeof Buffer, typeof setTimeout,
        typeof __tracerHost, typeof WebAssembly, typeof std, typeof os, fnCtor('return typeof process')(),
        (function () { try { return typeof import.meta; } catch (e) { return 'no import.meta'; } })()];
    } }`;
  await t.rejects(traceCode(source, loopCode(1)), /import\.meta|SyntaxError/i, 'import.meta is not even syntax here');
  const safe = source.replace("(function () { try { return typeof import.meta; } catch (e) { return 'no import.meta'; } })()", '"n/a"');
  const result = (await traceCode(safe, loopCode(1))) as string[];
  t.same(result.slice(0, 11), Array(11).fill('undefined'));
  const globals = '{ step: function () {}, fault: function () {}, result: function () { return Object.keys(globalThis).sort(); } }';
  t.same(
    await traceCode(globals, loopCode(1)),
    ['bigInt', 'isPrecompiled', 'slice', 'toAddress', 'toContract', 'toContract2', 'toHex', 'toWord'],
    'the only globals added to the standard library are geth helpers',
  );
  await hostStillTraces(t);
});
