/**
 * The node bounds V8's heap growth (node/heap-growth.ts): a process that keeps 64 MiB live
 * while it churns through short- and medium-lived objects reserves a heap much closer to its
 * live size than with V8's default factor. Both runs are child processes doing the same work.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

import { HEAP_GROWING_PERCENT } from '../../src/node/heap-growth.js';

const MODULE = fileURLToPath(new URL('../../src/node/heap-growth.ts', import.meta.url));

/** The child: optionally bounds growth, then churns and reports its peak heap and its live size after a full GC. */
const churn = (bound: boolean) => `
  ${bound ? `const { boundHeapGrowth } = await import(${JSON.stringify(MODULE)}); boundHeapGrowth();` : ''}
  const { getHeapStatistics } = await import('node:v8');
  const live = Array.from({ length: 64 }, () => Array.from({ length: 16384 }, (_, i) => ({ i })));
  let keep = [];
  let peak = 0;
  for (let round = 0; round < 400; round++) {
    keep.push(Array.from({ length: 20000 }, (_, i) => ({ i, s: 'x' + i })));
    if (keep.length > 8) keep = keep.slice(4);
    peak = Math.max(peak, getHeapStatistics().total_heap_size);
  }
  keep = [];
  globalThis.gc();
  console.log(JSON.stringify({ peak, live: getHeapStatistics().used_heap_size, held: live.length }));
`;

function run(bound: boolean): { peak: number; live: number } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', '--input-type=module', '-e', churn(bound)], { encoding: 'utf8', timeout: 120_000 });
  if (child.status !== 0) throw new Error(`heap churn child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { peak: number; live: number };
}

t.test(`heap growth is bounded to ${HEAP_GROWING_PERCENT}% past the live size`, async (t) => {
  const unbounded = run(false);
  const bounded = run(true);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  t.comment(`peak heap ${mib(unbounded.peak)} MiB by default, ${mib(bounded.peak)} MiB bounded (live ${mib(bounded.live)} MiB)`);
  t.ok(bounded.peak < unbounded.peak * 0.85, `the bounded heap peaks lower (${mib(bounded.peak)} against ${mib(unbounded.peak)} MiB)`);
  t.ok(Math.abs(bounded.live - unbounded.live) < 16 * 2 ** 20, 'with the same live data');
});
