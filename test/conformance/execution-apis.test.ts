/**
 * The execution-apis debug_trace* conformance suite against a real node serving the test
 * chain imported by `stratad debug import-eth-chain`: every `.io` file passes (exact
 * responses, or schema conformance for `speconly`). Also: the schema checker and the JSON
 * diff reject what they must (so a pass means something), and the import refuses a
 * non-empty home and fails naming the block whose header its execution contradicts.
 */
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode as rlpDecode, encode as rlpEncode } from '@ethereumjs/rlp';

import { SUITE_ROOT, loadSchemas, runExecutionApisSuite } from './execution-apis.js';
import { ROOT } from './imported-node.js';
import { readIoTests } from './io-file.js';
import { jsonDifferences } from './json-diff.js';
import { checkSchema } from './schema-check.js';

const STRATAD = join(ROOT, 'src', 'cli', 'stratad.ts');

function importChain(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', STRATAD, 'debug', 'import-eth-chain', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('every execution-apis .io test passes against the imported chain', async (t) => {
  const files = readIoTests(SUITE_ROOT);
  const report = await runExecutionApisSuite();
  t.equal(report.outcomes.length, files.length, 'every .io file ran');
  for (const outcome of report.outcomes) {
    t.ok(outcome.passed, outcome.name, { problems: outcome.problems });
  }
  t.equal(report.failed, 0, 'no failures');
});

t.test('the schema check and the diff reject what they must', async (t) => {
  const schemas = loadSchemas();
  const trace = { gas: 21000, failed: false, returnValue: '0x', structLogs: [{ pc: 0, op: 'STOP', gas: 10, gasCost: 0, depth: 1, stack: ['0x1'] }] };
  const schema = schemas.get('OpcodeTransactionTrace')!;
  t.same(checkSchema(trace, schema, schemas), [], 'a well-formed trace conforms');
  const withoutLogs: Record<string, unknown> = { ...trace };
  delete withoutLogs.structLogs;
  t.match(checkSchema(withoutLogs, schema, schemas), [/missing required "structLogs"/], 'a trace without structLogs does not');
  t.match(checkSchema({ ...trace, returnValue: '0xABC' }, schema, schemas), [/does not match/], 'upper-case hex does not match the bytes pattern');
  t.match(checkSchema({ ...trace, structLogs: [{ ...trace.structLogs[0], depth: 0 }] }, schema, schemas), [/below the minimum 1/], 'depth 0 is below the minimum');
  t.match(checkSchema({ ...trace, structLogs: [{ ...trace.structLogs[0], memory: ['0x01'] }] }, schema, schemas), [/memory\[0\].*does not match/], 'a memory word shorter than 32 bytes does not conform');
  t.equal(jsonDifferences({ a: [1, 2] }, { a: [1, 2] }).length, 0, 'equal values have no differences');
  t.match(jsonDifferences({ a: [1, 3], b: 1 }, { a: [1, 2], c: 1 }), [
    { path: '$.a[1]', kind: 'value' },
    { path: '$.b', kind: 'only-ours' },
    { path: '$.c', kind: 'only-expected' },
  ], 'a changed element, an extra key and a missing key are each reported');
});

t.test('import-eth-chain refuses a non-empty home and names the block its execution contradicts', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'strata-eth-import-test-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const genesis = join(SUITE_ROOT, 'genesis.json');

  const occupied = join(work, 'occupied');
  mkdirSync(occupied);
  writeFileSync(join(occupied, 'keep.txt'), 'operator data');
  const refused = importChain(['--genesis', genesis, '--chain', join(SUITE_ROOT, 'chain.rlp'), '--home', occupied]);
  t.equal(refused.status, 1, 'a non-empty home is refused');
  t.match(refused.stderr, /is not empty/, 'saying why');
  t.equal(readFileSync(join(occupied, 'keep.txt'), 'utf8'), 'operator data', 'and left untouched');

  // Block 1 with a header claiming more gas than its transactions use.
  const chain = readFileSync(join(SUITE_ROOT, 'chain.rlp'));
  const first = (rlpDecode(chain, true) as unknown as { data: [Uint8Array[], ...unknown[]] }).data;
  const claimed = 0x123456;
  first[0][10] = Uint8Array.from([0x12, 0x34, 0x56]);
  const tampered = join(work, 'tampered.rlp');
  writeFileSync(tampered, rlpEncode(first as never));
  const home = join(work, 'home');
  const failed = importChain(['--genesis', genesis, '--chain', tampered, '--home', home]);
  t.equal(failed.status, 1, 'a block whose header its execution contradicts fails the import');
  t.match(failed.stderr, new RegExp(`block 1 \\(0x[0-9a-f]{64}\\): gas used \\d+ differs from the header's ${claimed}`), 'the error names the block and the mismatch');
  t.notOk(existsSync(home), 'the failed import removes the home it created');
});
