/**
 * The tracers without geth fixtures (4byteTracer, muxTracer, noopTracer) and tracer
 * configuration checks, run on the transactions of geth's callTracer fixtures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { TracerConfigError, UnknownTracerError, createTracer, type JsonValue } from '../../src/trace/index.js';
import { FIXTURE_ROOT, runFixture, type GethFixture } from './fixtures-harness.js';

function fixture(folder: string, name: string): GethFixture {
  return JSON.parse(readFileSync(join(FIXTURE_ROOT, folder, name), 'utf8')) as GethFixture;
}

type Frame = { type: string; input: string; to?: string; calls?: Frame[] };

/** Selector counts derived from a callTracer tree, the way 4byteTracer counts them. */
function selectorsOf(frame: Frame, isPrecompile: (to: string) => boolean, counts: Map<string, number>): Map<string, number> {
  const bytes = (frame.input.length - 2) / 2;
  if (['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'].includes(frame.type) && bytes >= 4 && !isPrecompile(frame.to ?? '')) {
    const key = `${frame.input.slice(0, 10)}-${bytes - 4}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const child of frame.calls ?? []) selectorsOf(child, isPrecompile, counts);
  return counts;
}

const isLowAddress = (to: string): boolean => /^0x0{38}(0[1-9a-f]|1[0-1])$/.test(to);

t.test('4byteTracer counts the selectors of every call frame', async (t) => {
  for (const name of ['deep_calls.json', 'delegatecall.json', 'inner_instafail.json']) {
    const f = fixture('call_tracer', name);
    const { result } = await runFixture({ ...f, tracerConfig: {} }, '4byteTracer');
    const expected = Object.fromEntries([...selectorsOf(f.result as Frame, isLowAddress, new Map())].sort(([a], [b]) => (a < b ? -1 : 1)));
    t.same(result, expected, name);
    t.equal(JSON.stringify(result), JSON.stringify(expected), `${name} keys are sorted`);
  }
});

t.test('muxTracer returns each sub-tracer result under its name, keys sorted', async (t) => {
  const f = fixture('call_tracer', 'deep_calls.json');
  const config = { prestateTracer: { diffMode: true }, callTracer: null, '4byteTracer': {} } as JsonValue;
  const { result } = await runFixture({ ...f, tracerConfig: config as GethFixture['tracerConfig'] }, 'muxTracer');
  const mux = result as { [key: string]: JsonValue };
  t.same(Object.keys(mux), ['4byteTracer', 'callTracer', 'prestateTracer']);
  t.same(mux.callTracer, (await runFixture({ ...f, tracerConfig: {} }, 'callTracer')).result);
  t.same(mux.prestateTracer, (await runFixture({ ...f, tracerConfig: { diffMode: true } }, 'prestateTracer')).result);
  t.same(mux['4byteTracer'], (await runFixture({ ...f, tracerConfig: {} }, '4byteTracer')).result);
});

t.test('noopTracer returns {} and still runs the transaction', async (t) => {
  const f = fixture('call_tracer', 'simple.json');
  const { result, gasUsed } = await runFixture({ ...f, tracerConfig: {} }, 'noopTracer');
  t.same(result, {});
  t.equal(`0x${gasUsed.toString(16)}`, (f.result as { gasUsed: string }).gasUsed);
});

t.test('tracer configuration is checked as geth checks it', async (t) => {
  t.throws(() => createTracer('callTracer', { onlyTopCall: 'true' }), TracerConfigError);
  t.throws(() => createTracer('callTracer', { onlyTopCall: 'true' }), {
    message: 'json: cannot unmarshal string into Go struct field callTracerConfig.onlyTopCall of type bool',
  });
  t.throws(() => createTracer('prestateTracer', { diffMode: true, includeEmpty: true }), { message: 'cannot use diffMode with includeEmpty' });
  t.throws(() => createTracer('fooTracer'), UnknownTracerError);
  t.throws(() => createTracer('muxTracer', { fooTracer: null }), UnknownTracerError);
});
