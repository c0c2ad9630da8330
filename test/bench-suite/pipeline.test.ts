/**
 * `npm run bench -- --only pipeline --quick` end to end: the compiled runner runs the real
 * pipeline suite (a validator without the block gas ceiling fed signed transfers over RPC, then
 * the sender-recovery ceiling on worker threads) and the results folder holds its JSON with
 * every field set to a sane, non-zero value, and report.md its figure row against the ceiling.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { formatNumber } from '../../bench/suite/evaluate.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNER = join(ROOT, 'dist', 'bench', 'suite', 'main.js');
const BUILD_TIMEOUT_MS = 600_000;
/** A quick run waits up to 30 s for a quiet machine and takes about a minute and a half on a loaded one. */
const RUN_TIMEOUT_MS = 900_000;
t.setTimeout(BUILD_TIMEOUT_MS + RUN_TIMEOUT_MS + 120_000);

const STAGES = ['execute', 'sc_commit', 'ss_apply', 'sign', 'block_store', 'recover', 'admission'];

t.test('--only pipeline --quick emits the pipeline figures', async (t) => {
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  t.equal(build.status, 0, `tsc: ${build.stdout}${build.stderr}`);
  t.ok(existsSync(join(ROOT, 'dist', 'bench', 'pipeline', 'main.js')), 'the suite is built');

  const out = mkdtempSync(join(tmpdir(), 'strata-bench-pipeline-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [RUNNER, '--only', 'pipeline', '--quick', '--out', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
  t.equal(run.code, 0, run.stderr.slice(-3000));
  const [folder] = readdirSync(out);
  const dir = join(out, folder!);
  const result = JSON.parse(readFileSync(join(dir, 'pipeline.json'), 'utf8')) as Record<string, unknown>;
  const positive = (name: string, value: unknown): void => {
    t.ok(typeof value === 'number' && Number.isFinite(value) && value > 0, `${name} is a positive number (${String(value)})`);
  };
  for (const field of ['pipelineTxPerSec', 'ecrecoverCeilingTxPerSec', 'ecrecoverOneThreadTxPerSec', 'submitTxPerSec', 'serialStagesTxPerSec', 'pipelineOverCeiling']) {
    positive(field, result[field]);
  }
  t.equal(result.transfers, 10_000, 'the quick size ran');
  t.equal(result.blockGasLimit, 60_000 * 21_000, 'the block gas limit holds 60,000 transfers');
  t.ok(Number(result.blocksWithTransfers) >= 1 && Number(result.blocksWithTransfers) <= Number(result.blocks), 'blocks with transfers are among the blocks made');
  t.ok(Number(result.pipelineTxPerSec) <= Number(result.submitTxPerSec), 'inclusion cannot finish before submission');
  t.equal(result.goalMet, Number(result.pipelineOverCeiling) >= 0.5, 'the goal verdict follows the ratio');
  t.equal(Number(result.pipelineOverCeiling).toFixed(6), (Number(result.pipelineTxPerSec) / Number(result.ecrecoverCeilingTxPerSec)).toFixed(6));
  const stages = result.pipelineStageMs as Record<string, Record<string, unknown>>;
  t.same(Object.keys(stages).sort(), [...STAGES].sort(), 'every stage is reported');
  for (const stage of STAGES.filter((s) => s !== 'recover')) positive(`${stage} mean ms/block`, stages[stage]?.meanMs);
  // The bench submits JSON-RPC batches, whose senders are recovered together on native threads
  // before admission: the RPC thread's own recovery time is then (close to) nothing.
  const recover = stages['recover']?.meanMs;
  t.ok(typeof recover === 'number' && recover >= 0 && recover < Number(stages['admission']?.meanMs), `RPC-thread recovery is measured and below the other checks (${String(recover)} ms/block)`);
  for (const stage of STAGES.slice(0, 5)) {
    positive(`${stage} p50`, stages[stage]?.p50Ms);
    t.ok(Number(stages[stage]?.p99Ms) >= Number(stages[stage]?.p50Ms), `${stage} p99 ≥ p50`);
  }
  t.match(readFileSync(join(dir, 'pipeline.stderr.log'), 'utf8'), /pipeline \/ ceiling \(goal ≥ 0\.50\)/, 'the table is kept in the log');
  const md = readFileSync(join(dir, 'report.md'), 'utf8');
  t.match(md, `| sustained transfers, submission to SS-applied (tx/s) | ${formatNumber(Number(result.pipelineTxPerSec))} | sender-recovery ceiling | ${formatNumber(Number(result.ecrecoverCeilingTxPerSec))} |`);
});
