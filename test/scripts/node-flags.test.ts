/**
 * Every way of launching `stratad` passes STRATAD_NODE_FLAGS, and V8 honours them: the
 * shebang line runs node with exactly those flags, and the young generation grows past the
 * default size.
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

t.test('with the flags the young generation grows past its default 32 MiB', async (t) => {
  // Keeps about 20 MB alive while allocating, so V8 grows new space as far as it may.
  const program = `const v8 = require('v8');
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, a: [i] }); if (keep.length > 200000) keep = []; }
console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);`;
  const newSpace = (flags: readonly string[]): number => {
    const r = spawnSync(process.execPath, [...flags, '-e', program], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(r.stderr);
    return Number(r.stdout) / 2 ** 20;
  };
  t.ok(newSpace([]) <= 32, 'the default stays at or below 32 MiB');
  t.ok(newSpace(STRATAD_NODE_FLAGS) > 32, 'the flags let it grow further');
});
