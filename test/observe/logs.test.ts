/**
 * `log_level` and `log_format` on the real output of a started node, the `[log] file` copy
 * under the home, the size rotation of that file, and the ring a crash report takes its lines from.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LogRing, RING_MIN_AGE_MS } from '../../src/log/ring-buffer.js';
import { RotatingFile } from '../../src/log/rotating-file.js';
import { startNode } from '../node/fixtures/node-process.js';
import { rpcResult } from '../node/fixtures/rpc-client.js';
import { waitUntil } from '../sync/fixtures/network.js';
import { homeWith } from './fixtures/homes.js';

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

t.test('log_format = "json", log_level = "debug": every line is a JSON record, debug lines included', async (t) => {
  const home = await homeWith(t, 100, (node) => ({ ...node, logLevel: 'debug', logFormat: 'json' }));
  const run = await startNode(t, home);
  await waitUntil('three blocks', async () => Number(await rpcResult(home.http, 'eth_blockNumber')) >= 3);
  t.equal(await run.stop(), 0);
  const records = lines(run.output()).map((line) => JSON.parse(line) as { level: string; time: string; msg: string });
  t.ok(records.length > 5);
  for (const r of records) t.ok(['trace', 'debug', 'info', 'warn', 'error'].includes(r.level) && !Number.isNaN(Date.parse(r.time)) && r.msg, `a record: ${r.msg}`);
  t.ok(records.some((r) => r.level === 'debug' && r.msg === 'executed block'), 'debug lines are written');
  t.ok(records.some((r) => r.level === 'info' && r.msg === 'node started'));
});

t.test('log_format = "plain", log_level = "info": human-readable lines, no debug', async (t) => {
  const home = await homeWith(t, 100, (node) => ({ ...node, logLevel: 'info', logFormat: 'plain' }));
  const run = await startNode(t, home);
  await waitUntil('three blocks', async () => Number(await rpcResult(home.http, 'eth_blockNumber')) >= 3);
  t.equal(await run.stop(), 0);
  const out = lines(run.output());
  for (const line of out) t.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INF|WRN|ERR) \S/, 'a plain line');
  t.ok(out.some((line) => / INF node started /.test(line)));
  t.notOk(out.some((line) => line.includes('executed block')), 'no debug line at info');
});

t.test('log_level = "warn" drops info lines', async (t) => {
  const home = await homeWith(t, 100, (node) => ({ ...node, logLevel: 'warn', logFormat: 'plain' }));
  const run = await startNode(t, home);
  t.equal(await run.stop(), 0);
  t.notMatch(run.output(), / INF /);
});

t.test('[log] file: the same lines also go to a file under the home', async (t) => {
  const home = await homeWith(t, 100, (node) => ({ ...node, logFormat: 'json', log: { file: 'data/logs/node.log', maxFileSizeMb: 1, maxFiles: 2 } }));
  const file = join(home.home, 'data', 'logs', 'node.log');
  const run = await startNode(t, home);
  await waitUntil('the file has the start line', () => existsSync(file) && readFileSync(file, 'utf8').includes('"node started"'));
  t.equal(await run.stop(), 0);
  const inFile = lines(readFileSync(file, 'utf8'));
  const onStderr = lines(run.output());
  t.same(inFile, onStderr, 'the file holds exactly what stderr got, from the first line');
});

t.test('the log file rotates by size and keeps max-files rotated files', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-logfile-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'node.log');
  const file = new RotatingFile({ path, maxBytes: 1000, keep: 2 });
  for (let i = 0; i < 100; i++) file.write(`line ${String(i).padStart(3, '0')} ${'x'.repeat(90)}`); // 100 bytes each
  file.close();
  t.same(readdirSync(dir).sort(), ['node.log', 'node.log.1', 'node.log.2']);
  const current = lines(readFileSync(path, 'utf8'));
  t.equal(current.length, 10, 'each file holds at most 1000 bytes');
  t.match(current.at(-1), /^line 099 /);
  t.match(lines(readFileSync(`${path}.1`, 'utf8'))[0], /^line 080 /, '.1 is the previous file');
  t.match(lines(readFileSync(`${path}.2`, 'utf8'))[0], /^line 070 /, '.2 the one before; older ones are gone');
  const reopened = new RotatingFile({ path, maxBytes: 1000, keep: 2 });
  reopened.write('after a restart');
  reopened.close();
  t.same(readdirSync(dir).sort(), ['node.log', 'node.log.1', 'node.log.2'], 'a restart continues with the size already on disk');
  t.equal(lines(readFileSync(path, 'utf8'))[0], 'after a restart');
});

t.test('the ring keeps 1,000 lines or 15 minutes, whichever is more', (t) => {
  const ring = new LogRing();
  const start = Date.now() - 60 * 60_000;
  // 3,000 lines over an hour: 750 of them in the last 15 minutes.
  for (let i = 0; i < 3000; i++) ring.push(`old ${i}`, start + i * 1200);
  t.equal(ring.size, 1000, 'fewer than 1,000 lines in 15 minutes: the last 1,000 stay');
  t.equal(ring.snapshot().lines[0], 'old 2000');
  const now = start + 80 * 60_000;
  for (let i = 0; i < 5000; i++) ring.push(`recent ${i}`, now + i);
  t.equal(ring.size, 5000, 'more than 1,000 lines within 15 minutes: all stay');
  ring.push('later', now + RING_MIN_AGE_MS + 2500);
  const { lines: kept } = ring.snapshot();
  t.equal(kept[0], 'recent 2500', 'lines older than 15 minutes go once 1,000 newer ones are kept');
  t.equal(kept.at(-1), 'later');
  t.end();
});
