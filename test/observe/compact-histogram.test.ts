/**
 * CompactHistogram must scrape exactly as prom-client's own Histogram does for the same
 * observations (names, labels, their order, cumulative buckets, `+Inf`, sum, count), so that
 * dashboards and `histogram_quantile` cannot tell them apart; values on a bound count in it.
 */
import t from 'tap';
import { Histogram, Registry } from 'prom-client';

import { CompactHistogram } from '../../src/node/compact-histogram.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.25, 1];
const OBSERVED: Array<[string, number]> = [
  ['eth_getBalance', 0.0001],
  ['eth_getBalance', 0.0005],
  ['eth_getBalance', 0.0007],
  ['eth_call', 0.001],
  ['eth_call', 0.2],
  ['eth_getBalance', 0.004],
  ['say "hi"\\', 3],
  ['eth_call', 1],
  ['eth_call', 0],
];

function pair(): { reference: Registry; compact: Registry; histogram: Histogram<'method'>; fast: CompactHistogram<'method'> } {
  const reference = new Registry();
  const compact = new Registry();
  const name = 'strata_rpc_request_duration_seconds';
  const help = 'JSON-RPC call latency by method.';
  const histogram = new Histogram({ name, help, labelNames: ['method'], buckets: BUCKETS, registers: [reference] });
  const fast = new CompactHistogram({ name, help, labelName: 'method', buckets: BUCKETS, registry: compact });
  return { reference, compact, histogram, fast };
}

t.test('the exposition matches prom-client Histogram for the same observations', async (t) => {
  const { reference, compact, histogram, fast } = pair();
  for (const [method, seconds] of OBSERVED) {
    histogram.observe({ method }, seconds);
    fast.series(method).observe(seconds);
  }
  const text = await compact.metrics();
  t.equal(text, await reference.metrics(), 'identical text');
  t.match(text, /strata_rpc_request_duration_seconds_bucket\{le="0\.0005",method="eth_getBalance"\} 2\n/, 'a value on a bound counts in that bucket');
  t.match(text, /strata_rpc_request_duration_seconds_bucket\{le="\+Inf",method="eth_call"\} 4\n/);
  t.match(text, /method="say \\"hi\\"\\\\"/, 'label values are escaped');
  // prom-client's own samples carry `exemplar: null` (exemplars are off); nothing else may differ.
  const withoutExemplars = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
    metrics.map((m) => ({ ...m, values: m.values.map((sample) => {
      const { exemplar: _, ...rest } = sample as typeof sample & { exemplar?: unknown };
      return rest;
    }) }));
  t.same(await compact.getMetricsAsJSON(), withoutExemplars(await reference.getMetricsAsJSON()), 'and the JSON form');
});

t.test('a bound series keeps counting, and a reset zeroes it', async (t) => {
  const { reference, compact, histogram, fast } = pair();
  const checks = fast.series('checks');
  const child = histogram.labels({ method: 'checks' });
  for (const seconds of [0.0002, 0.003, 0.5]) {
    checks.observe(seconds);
    child.observe(seconds);
  }
  t.equal(await compact.metrics(), await reference.metrics());
  compact.resetMetrics();
  const after = await compact.metrics();
  t.match(after, /_count\{method="checks"\} 0\n/, 'reset to zero');
  checks.observe(0.02);
  t.match(await compact.metrics(), /_count\{method="checks"\} 1\n/, 'the series bound before the reset still records');
});

t.test('buckets must ascend', async (t) => {
  t.throws(() => new CompactHistogram({ name: 'x', help: 'x', labelName: 'l', buckets: [1, 1], registry: new Registry() }), RangeError);
  t.throws(() => new CompactHistogram({ name: 'y', help: 'y', labelName: 'l', buckets: [2, 1], registry: new Registry() }), /must ascend/);
});
