/**
 * `stratad doctor` on logs the node itself wrote in each situation (test/fixtures/doctor/,
 * captured by its capture.ts from real nodes) and on the consensus RPC of running nodes: the
 * findings come in the spec's order, with the report fields and remedies it names.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../bench/node/node-process.js';
import { ERROR_TABLE } from '../../src/node/doctor.js';
import { ROOT, startNode, stratad } from '../node/fixtures/node-process.js';
import { followerHome, validatorHome, waitUntil, heightOf } from '../sync/fixtures/network.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'doctor');
const STRATAD = join(ROOT, 'src', 'cli', 'stratad.ts');

/** The numbered finding titles of a diagnosis, in order. */
const titles = (out: string): string[] => [...out.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);

t.test('the error table is the spec\'s, word for word', async (t) => {
  t.same(
    ERROR_TABLE.map((e) => e.message),
    [
      'Consensus failure - height halted',
      'Private validator file not found',
      'Duplicate signature',
      'dial tcp … connection refused',
      'No peers available',
      'Database is corrupted',
      'failed to initialize database: resource temporarily unavailable',
    ],
  );
});

t.test('an app-hash mismatch comes first, with the report fields; peer handshake errors are its symptoms', async (t) => {
  const file = join(FIXTURES, 'app-hash-mismatch.jsonl');
  const log = readFileSync(file, 'utf8');
  const r = stratad(['doctor', '--log', file]);
  t.equal(r.status, 1, 'a problem found exits 1');
  const found = titles(r.stdout);
  t.match(found[0], /^App-hash mismatch \(wrong Block\.Header\.AppHash\)/);
  t.match(found[1], /^\[symptom\] Peer handshake errors/);
  const [, expected, got, height, blockId] = /Expected ([0-9A-F]{64}), got ([0-9A-F]{64}) \(block (\d+), block id ([0-9A-F]{64})/.exec(log)!;
  t.match(r.stdout, `app hash: expected ${expected} (the chain's), got ${got} (this node's)`);
  t.match(r.stdout, `commit hash (block id): ${blockId}`);
  t.match(r.stdout, `height: ${height}`);
  const steps = r.stdout.slice(r.stdout.indexOf('What to do:'));
  t.ok(steps.indexOf('Stop the node') < steps.indexOf('stratad rollback') && steps.indexOf('stratad rollback') < steps.indexOf('fresh snapshot') && steps.indexOf('fresh snapshot') < steps.indexOf('Restart'), 'the resolution steps in order');
  t.match(r.stdout, 'Fix the app-hash mismatch first');
  t.notMatch(r.stdout, 'Outdated peer ids', 'peer causes are not offered as the primary fix');

  const piped = spawnSync(process.execPath, ['--import', 'tsx', STRATAD, 'doctor', '--log', '-'], { cwd: ROOT, input: log, encoding: 'utf8', timeout: 60_000 });
  t.equal(piped.stdout, r.stdout, 'the same diagnosis from standard input');
});

t.test('peer handshake errors without an app-hash mismatch are the primary problem', async (t) => {
  const r = stratad(['doctor', '--log', join(FIXTURES, 'peer-id-mismatch.log')]);
  t.equal(r.status, 1);
  t.match(titles(r.stdout)[0], /^Peer handshake errors \(no app-hash mismatch/);
  t.match(r.stdout, 'expected peer id mismatch');
  for (const cause of ['Outdated peer ids', 'Peer infrastructure changes', 'firewall blocking port 26656', 'DNS problems']) t.match(r.stdout, cause);
});

t.test('a refused persistent peer: the error-table messages with their remedies', async (t) => {
  const r = stratad(['doctor', '--log', join(FIXTURES, 'refused-peer.log')]);
  t.equal(r.status, 1);
  t.same(titles(r.stdout), ['dial tcp … connection refused', 'No peers available']);
  t.match(r.stdout, 'Check connectivity to the peer and the firewall');
  t.match(r.stdout, 'Check the peers with /net_info and the network configuration');
});

t.test('a home in use: the locked-database remedy', async (t) => {
  const r = stratad(['doctor', '--log', join(FIXTURES, 'database-locked.log')]);
  t.equal(r.status, 1);
  t.same(titles(r.stdout), ['failed to initialize database: resource temporarily unavailable']);
  t.match(r.stdout, 'kill the node process (reboot if needed), then repeat the rollback');
});

t.test('a healthy log: no problem', async (t) => {
  const r = stratad(['doctor', '--log', join(FIXTURES, 'healthy-validator.log')]);
  t.equal(r.status, 0, r.stdout);
  t.match(r.stdout, 'No problem found.');
});

t.test('--rpc: a stuck follower versus a producing validator', async (t) => {
  const validator = await validatorHome(t, 200);
  const v = await startNode(t, validator);
  const stuck = await followerHome(t, validator, { persistentPeers: `${validator.nodeId}@127.0.0.1:${await freePort()}` });
  const s = await startNode(t, stuck);
  await waitUntil('the validator at 2', async () => (await heightOf(validator)) >= 2);

  const healthy = stratad(['doctor', '--home', validator.home, '--rpc', `http://127.0.0.1:${validator.rpc}`, '--interval', '2']);
  t.equal(healthy.status, 0, healthy.stdout + healthy.stderr);
  t.match(healthy.stdout, 'and 2 samples of /status, /net_info and /lag_status');
  t.match(healthy.stdout, 'No problem found.');

  const r = stratad(['doctor', '--home', stuck.home, '--rpc', `http://127.0.0.1:${stuck.rpc}`, '--interval', '2']);
  t.equal(r.status, 1);
  t.match(titles(r.stdout)[0], /^The height does not increase \(0 over \d+ s\)/);
  t.match(r.stdout, 'peers: 0');
  t.match(r.stdout, 'The node has no peers');

  const down = stratad(['doctor', '--home', stuck.home, '--rpc', `http://127.0.0.1:${await freePort()}`, '--interval', '0']);
  t.equal(down.status, 2);
  t.match(down.stderr, /cannot read http:\/\/127\.0\.0\.1:\d+\/status .*is the node running/);
  t.equal(await s.stop(), 0);
  t.equal(await v.stop(), 0);
});
