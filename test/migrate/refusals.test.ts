/**
 * Every refusal of `stratad migrate evm-ss-split` leaves every byte of the home as it was, and
 * says why and what to do: a validator, an archive node, sc-enable off, legacy keys, a held
 * home, a running node, an unreachable or foreign --rpc, no terminal without --yes. Also
 * `--dry-run` (every step with its values, nothing changed), a cancelled prompt, a failed step's
 * report, and a backend switch without the migration, which the node itself refuses.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test as Tap } from 'tap';
import { freePort } from '../../bench/node/node-process.js';
import { ROOT } from '../node/fixtures/node-process.js';
import { consensus } from '../sync/fixtures/network.js';
import { copyHome, editApp, homePicture, runStratad, startedPid, startNode, startValidator, stoppedRpcNode } from './fixtures.js';

t.test('refusals and the dry run change nothing', async (t) => {
  const net = await startValidator(t);
  const rpcHome = await stoppedRpcNode(t, net, 5);

  /** Runs the migration on `home` and checks it is refused with `reason` and `fix`, every byte unchanged. */
  const refused = async (t: Tap, what: string, home: string, args: string[], reason: RegExp, fix: RegExp): Promise<void> => {
    const before = homePicture(home);
    const run = await runStratad(['migrate', 'evm-ss-split', '--home', home, ...args]);
    t.equal(run.status, 1, `${what}: refused`, { stdout: run.stdout, stderr: run.stderr });
    t.match(run.stderr, reason, `${what}: the reason`);
    t.match(run.stderr, fix, `${what}: the fix`);
    t.same(homePicture(home), before, `${what}: every byte of the home is unchanged`);
  };
  const rpc = ['--rpc', net.rpcUrl, '--yes'];

  await t.test('a validator home', async (t) => {
    const home = copyHome(t, net.validator.home);
    await refused(t, 'validator', home, rpc, /migration refused \(validator node\): this home's validator key \([0-9A-F]{40}\) is in the genesis validator set/, /Fix: run the migration on an RPC node/);
  });

  await t.test('an archive node', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await editApp(home, (app) => ({ ...app, stateStore: { ...app.stateStore, keepRecent: 0 } }));
    await refused(t, 'archive', home, rpc, /migration refused \(archive node\): ss-keep-recent = 0/, /Fix: keep this archive node on evm-ss-split = false/);
  });

  await t.test('sc-enable false', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await editApp(home, (app) => ({ ...app, stateCommit: { ...app.stateCommit, enable: false } }));
    await refused(t, 'sc-enable', home, rpc, /migration refused \(configuration\): .*sc-enable: expected true; found false/, /Set sc-enable = true in \[state-commit\]/);
  });

  await t.test('ss-enable false', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await editApp(home, (app) => ({ ...app, stateStore: { ...app.stateStore, enable: false } }));
    await refused(t, 'ss-enable', home, rpc, /migration refused \(configuration\): .*ss-enable: expected true; found false/, /Set ss-enable = true in \[state-store\]/);
  });

  await t.test('legacy evm-ss-write-mode / evm-ss-read-mode', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const app = join(home, 'config', 'app.toml');
    writeFileSync(app, readFileSync(app, 'utf8').replace('[state-store]\n', '[state-store]\nevm-ss-write-mode = "split_write"\nevm-ss-read-mode = "split_read"\n'));
    await refused(t, 'legacy keys', home, rpc, /migration refused \(legacy keys\): .*app\.toml still holds evm-ss-write-mode/, /Fix: remove evm-ss-write-mode and evm-ss-read-mode from \[state-store\]/);
  });

  await t.test('a home another process holds', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const holder = spawn('flock', ['--exclusive', join(home, 'data', 'committer.db', 'LOCK'), 'sleep', '300'], { stdio: 'ignore' });
    t.teardown(() => holder.kill('SIGKILL'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await refused(t, 'held home', home, rpc, /migration refused \(node running\): failed to initialize database: resource temporarily unavailable/, /Fix: stop the node/);
  });

  await t.test('a running node', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const node = await startNode(t, { ...rpcHome, home });
    const settings = ['app.toml', 'config.toml', 'genesis.json', 'priv_validator_key.json', 'node_key.json'].map((f) => readFileSync(join(home, 'config', f)));
    const run = await runStratad(['migrate', 'evm-ss-split', '--home', home, ...rpc]);
    t.equal(run.status, 1, 'refused', { stdout: run.stdout, stderr: run.stderr });
    t.match(run.stderr, /migration refused \(node running\).*Fix: stop the node.*Nothing in the home was changed/s);
    t.same(['app.toml', 'config.toml', 'genesis.json', 'priv_validator_key.json', 'node_key.json'].map((f) => readFileSync(join(home, 'config', f))), settings, 'config/ is unchanged');
    t.notOk(readdirSync(home).some((name) => name.startsWith('migrate-backup-')), 'no backup folder');
    t.ok(existsSync(join(home, 'data', 'committer.db')), 'data/ is still there');
    t.equal(await node.stop(), 0, 'the node kept running and stops cleanly');
  });

  await t.test('an unreachable --rpc', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const port = await freePort();
    await refused(t, 'unreachable rpc', home, ['--rpc', `http://127.0.0.1:${port}`, '--yes'], /migration refused \(trusted RPC\): --rpc http:\/\/127\.0\.0\.1:\d+ is not usable: GET .*\/status failed/, /Fix: give --rpc the consensus RPC/);
  });

  await t.test('an --rpc that is not a consensus RPC', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await refused(t, 'EVM RPC as --rpc', home, ['--rpc', `http://127.0.0.1:${net.validator.http}`, '--yes'], /migration refused \(trusted RPC\)/, /Fix: give --rpc the consensus RPC/);
  });

  await t.test('no terminal and no --yes', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await refused(t, 'no --yes', home, ['--rpc', net.rpcUrl], /migration refused \(confirmation\): standard input is not a terminal/, /Fix: pass --yes/);
  });

  await t.test('on a terminal, an answer other than yes cancels and changes nothing', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const before = homePicture(home);
    // script(1) gives the command a terminal; "n" is typed at the prompt.
    const command = [process.execPath, '--import', 'tsx', join(ROOT, 'src', 'cli', 'stratad.ts'), 'migrate', 'evm-ss-split', '--home', home, '--rpc', net.rpcUrl].join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: ROOT, input: 'n\n', encoding: 'utf8', timeout: 120_000 });
    t.equal(run.status, 1, 'cancelled', { stdout: run.stdout, stderr: run.stderr });
    t.match(run.stdout, /Proceed\? \[y\/N\]/, 'the prompt is shown after the plan');
    t.match(run.stdout, /migration cancelled; nothing in the home was changed/);
    t.same(homePicture(home), before, 'every byte of the home is unchanged');
  });

  await t.test('a failed step says the state of the home and how to go on or back', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const run = await runStratad(['migrate', 'evm-ss-split', '--home', home, '--rpc', net.rpcUrl, '--yes', '--ready-timeout', '0.2'], 200_000);
    startedPid(t, run);
    t.equal(run.status, 1, 'the wait fails', { stdout: run.stdout, stderr: run.stderr });
    t.match(run.stderr, /migration failed at step 7 \(wait until ready\): the node \(pid \d+\) was not ready after 0\.2 s/);
    t.match(run.stderr, /State of the home: migrated on disk \(settings written, backups restored from .*migrate-backup-\d{8}T\d{6}Z\)/);
    t.match(run.stderr, /What next: read .*stratad-\d{8}T\d{6}Z\.log.*To undo: stop the node, run stratad migrate evm-ss-split --disable --home /s);
  });

  await t.test('--dry-run prints every step and changes nothing', async (t) => {
    const home = copyHome(t, rpcHome.home);
    const before = homePicture(home);
    const run = await runStratad(['migrate', 'evm-ss-split', '--home', home, '--rpc', net.rpcUrl, '--trust-delta', '2', '--backend', 'rocksdb', '--dry-run']);
    t.equal(run.status, 0, 'the dry run succeeds', { stdout: run.stdout, stderr: run.stderr });
    t.same(homePicture(home), before, 'every byte of the home is unchanged');
    const height = Number(/trust-height = (\d+)/.exec(run.stdout)?.[1]);
    t.ok(height >= 1, `the trust height is printed: ${height}`);
    const block = await consensus(net.validator, `/block?height=${height}`);
    const hash = (block.result.block_id as { hash: string }).hash.toLowerCase();
    for (const step of [
      /1\. back up: copy .*priv_validator_state\.json, .*priv_validator_key\.json, .*genesis\.json, .*node_key\.json.* to .*migrate-backup-\d{8}T\d{6}Z/,
      /2\. wipe: delete .*\/data, .*\/wasm/,
      /3\. re-initialise: stratad init --chain-id strata-test-1 test-node --home /,
      /4\. write settings: app\.toml \[state-store\] evm-ss-split = true, ss-backend = "rocksdb" \(was "pebbledb"\)/,
      new RegExp(`rpc-servers = "${net.rpcUrl},${net.rpcUrl}", trust-height = ${height}, trust-hash = "${hash}"`),
      new RegExp(`persistent_peers = "${net.validator.nodeId}@127\\.0\\.0\\.1:${net.validator.p2p}"`),
      /5\. restore backups: /,
      /6\. start the node: stratad start --home .* in the background, its output in .*\.log/,
      /7\. wait until ready: .*debug_traceBlockByNumber\("latest", \{\}\)/,
      /Dry run: nothing was changed\./,
    ]) {
      t.match(run.stdout, step);
    }
  });

  await t.test('--disable --dry-run changes nothing; --disable refuses a held home', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await editApp(home, (app) => ({ ...app, stateStore: { ...app.stateStore, evmSsSplit: true } }));
    const before = homePicture(home);
    const dry = await runStratad(['migrate', 'evm-ss-split', '--disable', '--dry-run', '--home', home]);
    t.equal(dry.status, 0, 'dry run', { stderr: dry.stderr });
    t.match(dry.stdout, /1\. set evm-ss-split = false/);
    t.same(homePicture(home), before, 'unchanged by the dry run');
    const holder = spawn('flock', ['--exclusive', join(home, 'data', 'committer.db', 'LOCK'), 'sleep', '300'], { stdio: 'ignore' });
    t.teardown(() => holder.kill('SIGKILL'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const run = await runStratad(['migrate', 'evm-ss-split', '--disable', '--home', home]);
    t.equal(run.status, 1);
    t.match(run.stderr, /migration refused \(node running\)/);
    t.same(homePicture(home), before, 'unchanged by the refusal');
  });

  await t.test('a backend switch without the migration is refused by the node', async (t) => {
    const home = copyHome(t, rpcHome.home);
    await editApp(home, (app) => ({ ...app, stateStore: { ...app.stateStore, backend: 'rocksdb' } }));
    const before = homePicture(home);
    const run = await runStratad(['start', '--home', home], 120_000);
    t.equal(run.status, 1, 'the node does not start', { stdout: run.stdout, stderr: run.stderr });
    t.match(run.stderr, /the state store \(.*rocksdb, ss-backend "rocksdb"\) holds no history but the state commitment has committed blocks/);
    t.match(run.stderr, /set it back to the backend the home was created with: a switch of ss-backend is done by stratad migrate evm-ss-split --rpc <trusted node consensus RPC> --backend <new ss-backend> \(a wipe and a state sync\)/);
    t.same(homePicture(home), before, 'every byte of the home is unchanged');
  });

});
