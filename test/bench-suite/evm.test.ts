/**
 * `npm run bench:evm` end to end, from the source tree: a fresh App with the Token deployed,
 * eth_call timed in process with every answer checked (a wrong answer ends the run), and its
 * JSON with each figure set and consistent; bad sizes are refused with what to pass instead.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH = join(ROOT, 'bench', 'evm', 'main.ts');

function runBench(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', BENCH, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

t.test('a small run answers every call right and reports each figure', async (t) => {
  const run = runBench(['--calls', '200', '--rounds', '2', '--json']);
  t.equal(run.status, 0, `bench:evm exits 0: ${run.stderr}`);
  const out = JSON.parse(run.stdout) as Record<string, unknown>;
  t.equal(out.calls, 200, 'calls per round as asked');
  t.equal(out.rounds, 2, 'rounds as asked');
  for (const field of ['evmCallBalanceOfUs', 'evmCallNoCodeUs']) {
    const value = out[field];
    t.ok(typeof value === 'number' && Number.isFinite(value) && value > 0, `${field} is a positive time (${String(value)})`);
  }
  t.equal(out.evmCallInterpreterUs, (out.evmCallBalanceOfUs as number) - (out.evmCallNoCodeUs as number), 'the interpreter figure is the difference');
  t.equal((out.evmCallBalanceOfRoundsUs as number[]).length, 2, 'one balanceOf figure per round');
  t.equal((out.evmCallNoCodeRoundsUs as number[]).length, 2, 'one no-code figure per round');
  t.match(run.stderr, /round 2\/2: balanceOf [\d.]+ µs, no code [\d.]+ µs per call/, 'each round is reported as it ends');
});

t.test('a size that is not a whole number of 1 or more is refused', async (t) => {
  const run = runBench(['--calls', '0']);
  t.equal(run.status, 2, 'exits 2');
  t.match(run.stderr, /--calls and --rounds take whole numbers of 1 or more/, 'says what to pass');
});
