/**
 * Every way of launching `stratad` passes STRATAD_NODE_FLAGS, and V8 honours them: the
 * shebang line runs node with exactly those flags, the main thread's young generation grows
 * past the default size, and a worker started after confineYoungGenerationToMainThread
 * keeps its own limit.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STRATAD_NODE_FLAGS } from '../../src/cli/node-flags.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FLAGS = STRATAD_NODE_FLAGS.join(' ');
const SHEBANG = readFileSync(join(ROOT, 'src', 'cli', 'stratad.ts'), 'utf8').split('\n')[0]!;

t.test('each launcher passes the flags', async (t) => {
  t.equal(SHEBANG, `#!/usr/bin/env -S node ${FLAGS}`, 'the stratad shebang (the npm bin)');
  t.match(readFileSync(join(ROOT, 'docker', 'stratad'), 'utf8'), `exec node ${FLAGS} "`, 'the image entry point');
  t.match(readFileSync(join(ROOT, 'scripts', 'start.sh'), 'utf8'), `exec node ${FLAGS} dist/src/cli/stratad.js start`, 'scripts/start.sh');
  t.match(readFileSync(join(ROOT, 'bench', 'node', 'node-process.ts'), 'utf8'), '[...STRATAD_NODE_FLAGS, ...nodeArgs, STRATAD', 'the benchmarks');
});

t.test('an executable with the shebang runs node with exactly the flags', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-shebang-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'flags.js');
  writeFileSync(script, `${SHEBANG}\nconsole.log(JSON.stringify(process.execArgv));\n`);
  chmodSync(script, 0o755);
  const r = spawnSync(script, [], { encoding: 'utf8', timeout: 30_000 });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout), STRATAD_NODE_FLAGS);
});

// Keeps about 20 MB alive while allocating, so V8 grows new space as far as it may, and
// prints its size in MiB.
const GROW_NEW_SPACE = `const v8 = await import('node:v8');
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, a: [i] }); if (keep.length > 200000) keep = []; }
const newSpaceMiB = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;`;

/** Runs `program` (an ES module) under node with `flags`; returns what it printed, parsed. */
function run(flags: readonly string[], program: string): unknown {
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

t.test('with the flags the main thread\'s young generation grows past its default 32 MiB', async (t) => {
  const program = `${GROW_NEW_SPACE}\nconsole.log(newSpaceMiB);`;
  t.ok((run([], program) as number) <= 32, 'the default stays at or below 32 MiB');
  t.ok((run(STRATAD_NODE_FLAGS, program) as number) > 32, 'the flags let it grow further');
});

t.test('a worker started after confineYoungGenerationToMainThread keeps its own young-generation limit', async (t) => {
  const program = (confine: boolean): string => `
import { Worker } from 'node:worker_threads';
import { confineYoungGenerationToMainThread } from './src/node/heap-growth.ts';
${confine ? 'confineYoungGenerationToMainThread();' : ''}
${GROW_NEW_SPACE}
const worker = new Worker(${JSON.stringify(`(async () => { ${GROW_NEW_SPACE} (await import('node:worker_threads')).parentPort.postMessage(newSpaceMiB); })()`)}, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 12 } });
worker.once('message', async (workerMiB) => { await worker.terminate(); console.log(JSON.stringify({ main: newSpaceMiB, worker: workerMiB })); });`;
  const confined = run(STRATAD_NODE_FLAGS, program(true)) as { main: number; worker: number };
  t.ok(confined.main > 32, `the main thread keeps the flag (${confined.main} MiB)`);
  t.ok(confined.worker <= 12, `the worker keeps its 12 MiB limit (${confined.worker} MiB)`);
  const unconfined = run(STRATAD_NODE_FLAGS, program(false)) as { main: number; worker: number };
  t.ok(unconfined.worker > 12, `without it the flag overrides the worker's limit (${unconfined.worker} MiB)`);
});
