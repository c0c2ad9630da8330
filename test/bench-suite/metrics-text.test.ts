/**
 * The benchmarks read the node's `/metrics` with one parser (bench/metrics-text.ts): sample
 * lines with and without labels, histogram parts, special values, and the comment lines of a
 * real prom-client exposition skipped.
 */
import t from 'tap';

import { parseMetrics } from '../../bench/metrics-text.js';

const EXPOSITION = `# HELP strata_block_height Latest committed height.
# TYPE strata_block_height gauge
strata_block_height 42

# HELP strata_native_heap_bytes The C heap.
# TYPE strata_native_heap_bytes gauge
strata_native_heap_bytes{kind="in_use"} 1048576
strata_native_heap_bytes{kind="free"} 0
strata_block_stage_duration_seconds_bucket{le="0.005",stage="execute"} 3
strata_block_stage_duration_seconds_bucket{le="+Inf",stage="execute"} 7
strata_block_stage_duration_seconds_sum{stage="execute"} 0.125
nodejs_eventloop_lag_seconds NaN
`;

t.test('samples with their names, labels and values', async (t) => {
  const samples = parseMetrics(EXPOSITION);
  t.equal(samples.length, 7, 'comments and blank lines are not samples');
  t.same(samples[0], { name: 'strata_block_height', labels: {}, value: 42 });
  t.same(samples[1], { name: 'strata_native_heap_bytes', labels: { kind: 'in_use' }, value: 1048576 });
  t.same(samples[4], { name: 'strata_block_stage_duration_seconds_bucket', labels: { le: '+Inf', stage: 'execute' }, value: 7 }, 'a histogram bucket with two labels');
  t.equal(samples[5]!.value, 0.125);
  t.ok(Number.isNaN(samples[6]!.value), 'NaN stays NaN');
});

t.test('text that is not an exposition gives no samples', async (t) => {
  t.same(parseMetrics('<html>not found</html>\n'), []);
  t.same(parseMetrics(''), []);
});
