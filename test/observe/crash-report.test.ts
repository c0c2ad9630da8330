/**
 * A crash writes `data/crash-reports/<time>.json`: a node run with the test switch
 * STRATA_TEST_THROW_AT_HEIGHT throws an uncaught exception after that block; the report holds
 * at least 1,000 log lines, the stack, the status and the versions, and `stratad crash-report`
 * bundles it into one file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CrashReport } from '../../src/node/crash-report.js';
import { VERSION } from '../../src/node/version.js';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { startNode, stratad } from '../node/fixtures/node-process.js';
import { chainOf } from '../node/fixtures/rpc-client.js';
import { followerHome, validatorHome, waitUntil } from '../sync/fixtures/network.js';
import { homeWith } from './fixtures/homes.js';

const CRASH_AT = 1100;

t.test('an uncaught exception writes a crash report with the recent log and the stack', async (t) => {
  // Debug logs one line per block ("executed block"), so 1,100 blocks give more than 1,000 lines.
  const home = await homeWith(t, 1, (node) => ({ ...node, logLevel: 'debug', logFormat: 'json' }));
  const run = await startNode(t, home, { env: { STRATA_TEST_THROW_AT_HEIGHT: String(CRASH_AT) } });
  const ended = await Promise.race([run.ended, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 600_000).unref())]);
  t.not(ended, 'timeout', 'the node crashed');
  if (ended === 'timeout') return;
  t.equal(ended.code, 1, 'the process exits with 1');
  t.match(run.output(), /crash report: .*crash-reports/, 'stderr names the report');

  const dir = join(home.home, 'data', 'crash-reports');
  const files = readdirSync(dir);
  t.equal(files.length, 1);
  t.match(files[0], /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.json$/);
  const report = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as CrashReport;
  t.equal(report.reason, 'uncaught exception');
  t.ok(report.log.lines >= 1000, `${report.log.lines} log lines kept (at least 1,000)`);
  t.equal(report.log.entries.length, report.log.lines);
  t.ok(report.log.entries.filter((l) => l.includes('"executed block"')).length >= 1000, 'the lines are the node\'s own');
  const stderrLines = run.output().split('\n');
  t.ok(report.log.entries.every((line) => stderrLines.includes(line)), 'every kept line is one the node logged');
  const failure = report.failures[0]!;
  t.equal(failure.name, 'TestCrashError');
  t.match(failure.message, `after block ${CRASH_AT}`);
  t.match(failure.stack, /TestCrashError: STRATA_TEST_THROW_AT_HEIGHT[^\n]*\n\s+at .*node\.ts:\d+/, 'the full stack, with frames');
  t.ok(Number(report.status['latestBlockHeight']) >= CRASH_AT, 'the status at the crash');
  t.match(report.status['latestAppHash'], /^[0-9A-F]{64}$/);
  t.equal(report.versions.strata, VERSION);
  t.equal(report.versions.node, process.version);

  const out = mkdtempSync(join(tmpdir(), 'strata-crash-bundle-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const bundleFile = join(out, 'bundle.json');
  const bundled = stratad(['crash-report', '--home', home.home, '--latest', '--output', bundleFile]);
  t.equal(bundled.status, 0, bundled.stderr);
  t.match(bundled.stdout, bundleFile);
  const bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as { reports: CrashReport[]; config: Record<string, string> };
  t.equal(bundle.reports.length, 1);
  t.same(bundle.reports[0]!.failures, report.failures);
  t.equal(bundle.reports[0]!.log.lines, report.log.lines);
  t.match(bundle.config['config.toml'], 'log_level = "debug"');
  t.notMatch(readFileSync(bundleFile, 'utf8'), /priv_key|"value": "[A-Za-z0-9+/]{80,}/, 'no key material');

  const empty = mkdtempSync(join(tmpdir(), 'strata-empty-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  const none = stratad(['crash-report', '--home', empty, '--latest']);
  t.equal(none.status, 1);
  t.match(none.stderr, /no crash reports under .*crash-reports/);
});

t.test('a block sync halt (an app-hash mismatch) writes a crash report while the node keeps serving', async (t) => {
  const validator = await validatorHome(t, 200);
  await startNode(t, validator);
  const chain = chainOf(validator.http, validator.ws);
  const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const wallet = createWalletClient({ account: privateKeyToAccount(devAccounts(1)[0]!.privateKey as Hex), chain, transport: http() });
  const hash = await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000bad02', value: parseEther('1') });
  const perturbed = Number((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).blockNumber);
  const follower = await followerHome(t, validator);
  const run = await startNode(t, follower, { env: { STRATA_TEST_PERTURB_BALANCE_AT: String(perturbed) } });
  const dir = join(follower.home, 'data', 'crash-reports');
  await waitUntil('a crash report', () => run.output().includes('crash report written'), 120_000);
  const [file] = readdirSync(dir);
  const report = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as CrashReport;
  t.equal(report.reason, 'block sync halted');
  t.equal(report.failures[0]!.name, 'AppHashMismatchError');
  t.match(report.failures[0]!.stack, /wrong Block\.Header\.AppHash[^\n]*\n\s+at /);
  t.match(report.status['halted'], 'wrong Block.Header.AppHash');
  t.equal(report.status['latestBlockHeight'], perturbed);
  t.ok(report.log.entries.some((line) => line.includes('wrong Block.Header.AppHash')), 'the mismatch line is in the kept log');
  t.equal(await run.stop(), 0, 'the node was still running and stops cleanly');
});
