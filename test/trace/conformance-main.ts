/**
 * Runs every go-ethereum tracer fixture and prints per-folder results: a table, or with
 * `--json` one object `{folder: {passed, failed, failures: [names]}}`. `--verbose` adds
 * the reason for each failure to the table. The suite `execution-apis` runs the execution-apis
 * debug_trace* `.io` tests against a node serving the imported test chain.
 */
import { runExecutionApisSuite } from '../conformance/execution-apis.js';
import { checkFixture, fixtureFolders, fixtureNames, type FixtureOutcome } from './fixtures-harness.js';

interface SuiteSummary {
  passed: number;
  failed: number;
  failures: string[];
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const verbose = process.argv.includes('--verbose');
  const summary: Record<string, SuiteSummary> = {};
  const failures: FixtureOutcome[] = [];
  for (const folder of fixtureFolders()) {
    const suite: SuiteSummary = { passed: 0, failed: 0, failures: [] };
    for (const name of fixtureNames(folder)) {
      const outcome = await checkFixture(folder, name);
      if (outcome.passed) suite.passed++;
      else {
        suite.failed++;
        suite.failures.push(name);
        failures.push(outcome);
      }
    }
    summary[folder] = suite;
  }
  const apis = await runExecutionApisSuite();
  summary['execution-apis'] = { passed: apis.passed, failed: apis.failed, failures: apis.failures };
  if (json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(summary).map((s) => s.length));
  process.stdout.write(`${'suite'.padEnd(width)}  passed  failed\n`);
  for (const [suite, { passed, failed }] of Object.entries(summary)) {
    process.stdout.write(`${suite.padEnd(width)}  ${String(passed).padStart(6)}  ${String(failed).padStart(6)}\n`);
  }
  if (verbose) {
    for (const f of failures) {
      process.stdout.write(`\n${f.folder}/${f.name}: ${f.reason ?? ''}\n`);
      if (f.actual !== undefined) process.stdout.write(`  actual:   ${f.actual}\n  expected: ${f.expected ?? ''}\n`);
    }
    for (const o of apis.outcomes.filter((outcome) => !outcome.passed)) {
      process.stdout.write(`\nexecution-apis/${o.name}:\n${o.problems.map((p) => `  ${p}\n`).join('')}`);
    }
  }
}

await main();
