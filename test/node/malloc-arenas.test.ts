/**
 * The node caps malloc's arenas (node/malloc-arenas.ts): threads started after the cap share
 * the arenas there are instead of each making its own, and an operator's MALLOC_ARENA_MAX
 * stays in force. Each case is a child process that starts six worker threads (each a V8
 * isolate that allocates from its own thread) and counts the arenas before and after.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

import { MALLOC_ARENAS } from '../../src/node/malloc-arenas.js';

const ARENAS = fileURLToPath(new URL('../../src/node/malloc-arenas.ts', import.meta.url));
const STORE = fileURLToPath(new URL('../../src/store/index.ts', import.meta.url));

const child = (limit: boolean) => `
  const { mallocArenas } = await import(${JSON.stringify(STORE)});
  const { limitNativeArenas } = await import(${JSON.stringify(ARENAS)});
  const cap = ${limit ? 'limitNativeArenas()' : '0'};
  const before = mallocArenas();
  const { Worker } = await import('node:worker_threads');
  const code = "const a = []; for (let i = 0; i < 2000; i++) a.push(new Uint8Array(1024 + i)); import('node:worker_threads').then((w) => w.parentPort.postMessage(a.length));";
  await Promise.all(Array.from({ length: 6 }, () => new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', () => w.terminate().then(resolve));
    w.once('error', reject);
  })));
  console.log(JSON.stringify({ cap, before, after: mallocArenas() }));
`;

function run(limit: boolean, env: NodeJS.ProcessEnv = {}): { cap: number; before: number; after: number } {
  const base = { ...process.env };
  delete base.MALLOC_ARENA_MAX;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child(limit)], { encoding: 'utf8', timeout: 120_000, env: { ...base, ...env } });
  if (result.status !== 0) throw new Error(`arena child failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { cap: number; before: number; after: number };
}

t.test('threads started after the cap make no arenas beyond it', async (t) => {
  const free = run(false);
  t.ok(free.after > free.before, `without a cap, six threads add arenas (${free.before} → ${free.after})`);
  const capped = run(true);
  t.equal(capped.cap, MALLOC_ARENAS);
  t.ok(capped.after <= Math.max(MALLOC_ARENAS, capped.before), `with the cap they share the existing ones (${capped.before} → ${capped.after})`);
});

t.test("an operator's MALLOC_ARENA_MAX wins", async (t) => {
  const operator = run(true, { MALLOC_ARENA_MAX: '5' });
  t.equal(operator.cap, 5, 'the cap in effect is the environment\'s');
});
