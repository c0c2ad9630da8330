/**
 * The bounds of debug tracing without a node: the per-transaction deadline on a real EVM run
 * (geth's `execution timeout`, the run yields to the event loop while it lasts, a trace within
 * its deadline is unchanged, a failing tracer stops the run), the concurrency gate, and the
 * store-read recorder behind debug_traceStateAccess.
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownExecutionContext } from '../../src/app/execution-context.js';
import { createChainCommon } from '../../src/evm/common.js';
import { EMPTY_VIEW, type StateView } from '../../src/evm/state-manager.js';
import { NO_BLOCK_HASHES } from '../../src/evm/block-hashes.js';
import { rpcErrorOf } from '../../src/rpc/errors.js';
import { RecordingStateView, traceCall, viewWithChangesets, type TraceCallEnvironment } from '../../src/trace/executions/index.js';
import { TraceBusyError, TraceGate, TraceTimeoutError, TraceWatch, createTracer, type Tracer } from '../../src/trace/index.js';

const LOOPER = Buffer.from('00000000000000000000000000000000000100ff', 'hex');
/** JUMPDEST PUSH1 0 JUMP: loops until the gas runs out. */
const LOOP_CODE = Buffer.from('5b600056', 'hex');
/** PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const RETURN_42 = Buffer.from('602a60005260206000f3', 'hex');

const HEADER = { height: 7, timeMs: 1_704_067_200_000, proposer: new Uint8Array(20).fill(0xcb), baseFee: 10n ** 9n, gasLimit: 30_000_000n };
const ENV: TraceCallEnvironment = {
  context: ownExecutionContext(createChainCommon(713715), HEADER, new Uint8Array(32).fill(7), NO_BLOCK_HASHES),
  header: HEADER,
  view: EMPTY_VIEW,
  leadingTxs: [],
  gasCap: 50_000_000n,
};

function traceCode(code: Uint8Array, watch: TraceWatch, gas?: bigint) {
  const tracer = watch.wrap(createTracer('callTracer'));
  return watch.run(traceCall(ENV, { to: LOOPER, ...(gas !== undefined ? { gas } : {}) }, [{ address: LOOPER, override: { code } }], {}, tracer));
}

t.test('a transaction past its deadline fails with geth text, yielding meanwhile', async (t) => {
  const watch = new TraceWatch(150);
  let finished = false;
  let timerRanDuringTrace = false;
  // Without yielding, a timer set now could only run after the trace has ended.
  setTimeout(() => {
    timerRanDuringTrace = !finished;
  }, 0);
  const started = performance.now();
  const error = await traceCode(LOOP_CODE, watch).then(
    () => undefined,
    (e: unknown) => e,
  );
  finished = true;
  const elapsed = performance.now() - started;
  t.type(error, TraceTimeoutError);
  t.equal((error as Error).message, 'execution timeout');
  t.ok(elapsed >= 150, `stopped after ${Math.round(elapsed)} ms, not before its deadline`);
  t.ok(timerRanDuringTrace, 'the event loop ran a timer while the trace was running');
});

t.test('a trace within its deadline gives the same result as without the watch', async (t) => {
  const watched = await traceCode(RETURN_42, new TraceWatch(5_000));
  const bare = await traceCall(ENV, { to: LOOPER }, [{ address: LOOPER, override: { code: RETURN_42 } }], {}, createTracer('callTracer'));
  t.same(watched, bare);
  t.match(watched, { output: `0x${'00'.repeat(31)}2a`, type: 'CALL' });
  const outOfGas = await traceCode(LOOP_CODE, new TraceWatch(5_000), 100_000n);
  t.match(outOfGas, { error: 'out of gas', gasUsed: '0x186a0' }, 'a loop that ends within the deadline is traced to its end');
});

t.test('a tracer hook that fails stops the run at once with its error', async (t) => {
  let steps = 0;
  const failing: Tracer = {
    onOpcode: () => {
      if (++steps === 100) throw new Error('tracer broke');
    },
    result: () => null,
  };
  const watch = new TraceWatch(60_000);
  await t.rejects(watch.run(traceCall(ENV, { to: LOOPER }, [{ address: LOOPER, override: { code: LOOP_CODE } }], {}, watch.wrap(failing))), { message: 'tracer broke' });
  t.equal(steps, 100, 'no step reached the tracer after the failure (the EVM did not run on to the end of its 50M gas)');
});

t.test('a tracer that looks at no opcode gets none: the wrapper has no step hooks, and its clock still stops a loop', async (t) => {
  const watch = new TraceWatch(100);
  const calls = watch.wrap(createTracer('callTracer'));
  t.equal(calls.onOpcode, undefined, 'callTracer: no onOpcode, so the bridge builds no step for it');
  t.equal(calls.onFault, undefined);
  t.type(calls.onTick, 'function', 'the deadline runs in onTick instead');
  const opcodes = watch.wrap(createTracer('prestateTracer'));
  t.type(opcodes.onOpcode, 'function', 'prestateTracer keeps its opcode hook');
  t.type(opcodes.onFault, 'function');
  let ticks = 0;
  const counting: Tracer = { onTick: () => void ticks++, result: () => null };
  await traceCall(ENV, { to: LOOPER, gas: 30_000n }, [{ address: LOOPER, override: { code: LOOP_CODE } }], {}, counting);
  // JUMPDEST (1) + PUSH1 (3) + JUMP (8) per round of the loop.
  t.ok(ticks > 3 * Math.floor((30_000 - 21_000) / 12) - 3, `onTick ran before every opcode (${ticks} times)`);
  const error = await traceCode(LOOP_CODE, new TraceWatch(50)).catch((e: unknown) => e);
  t.type(error, TraceTimeoutError, 'the stepless callTracer still stops at its deadline');
});

t.test('the deadline is per transaction, from its start', async (t) => {
  const watch = new TraceWatch(100);
  await sleep(150);
  t.match(await traceCode(RETURN_42, watch), { output: `0x${'00'.repeat(31)}2a` }, 'time before the transaction does not count');
});

t.test('the gate admits up to its cap and refuses the rest at once', async (t) => {
  t.throws(() => new TraceGate(0), RangeError);
  const gate = new TraceGate(2);
  const releases: Array<() => void> = [];
  const held = () => gate.run(() => new Promise<string>((resolve) => releases.push(() => resolve('done'))));
  const first = held();
  const second = held();
  t.equal(gate.running, 2);
  const refused = await gate.run(async () => 'never').catch((e: unknown) => e);
  t.type(refused, TraceBusyError);
  t.equal(rpcErrorOf(refused)?.code, -32005, 'answered as limit exceeded');
  t.equal(
    rpcErrorOf(refused)?.message,
    'trace request rejected due to concurrency limit: server busy (2 traces running, max-concurrent-traces = 2); retry when a running trace has finished',
  );
  t.equal(rpcErrorOf(new Error('trace failed')), undefined, 'other errors keep the default -32000');
  releases[0]!();
  t.equal(await first, 'done');
  t.equal(gate.running, 1);
  await t.rejects(gate.run(async () => Promise.reject(new Error('trace failed'))), /trace failed/);
  t.equal(gate.running, 1, 'a failed trace frees its slot');
  t.equal(await gate.run(async () => 'admitted'), 'admitted');
  releases[1]!();
  t.equal(await second, 'done');
  t.equal(gate.running, 0);
});

t.test('the read recorder keeps the first value of each key, per store, over earlier writes', async (t) => {
  const base: StateView = {
    get: (store, key) => (store === 'bank' && key[0] === 1 ? Buffer.from('0a', 'hex') : store === 'evm' && key[0] === 2 ? Buffer.from('0b', 'hex') : undefined),
  };
  const layered = viewWithChangesets(base, [
    { name: 'evm', pairs: [{ key: Buffer.from([2]), value: null }, { key: Buffer.from([3]), value: Buffer.from('ff', 'hex') }] },
  ]);
  const recorder = new RecordingStateView(layered);
  t.same(recorder.get('bank', Buffer.from([1])), Buffer.from('0a', 'hex'));
  t.equal(recorder.get('evm', Buffer.from([2])), undefined, 'an earlier delete hides the base value');
  t.same(recorder.get('evm', Buffer.from([3])), Buffer.from('ff', 'hex'), 'an earlier write is the pre-state');
  t.equal(recorder.get('evm', Buffer.from([0xab, 0xcd])), undefined);
  t.equal(recorder.has('evm', Buffer.from([3])), true);
  t.equal(recorder.has('bank', Buffer.from([9])), false);
  const footprint = recorder.footprint();
  t.same([...footprint.keys()], ['bank', 'evm']);
  t.same(Object.fromEntries(footprint.get('bank')!.reads), { '01': '0a' });
  t.same(footprint.get('bank')!.has, ['09']);
  t.same(Object.fromEntries(footprint.get('evm')!.reads), { '02': '', '03': 'ff', abcd: '' });
  t.same(footprint.get('evm')!.has, ['03']);
});
