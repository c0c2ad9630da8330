/**
 * `stratad migrate evm-ss-split` on a real RPC node: the backups written and restored, the
 * settings it writes (split on, state sync from the trusted node with its hash at the trust
 * height, the trusted node as a peer), the node it starts and checks, a second pass that
 * switches `ss-backend`, and `--disable`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { consensus } from '../sync/fixtures/network.js';
import { evmCall, runStratad, startedPid, startValidator, stopPid, stoppedRpcNode } from './fixtures.js';

const KEPT = [join('config', 'genesis.json'), join('config', 'priv_validator_key.json'), join('config', 'node_key.json'), join('data', 'priv_validator_state.json')];

t.test('migrates a stopped RPC node, switches its backend, and disables the split', async (t) => {
  const net = await startValidator(t);
  const home = await stoppedRpcNode(t, net, 6);
  const before = new Map(KEPT.map((file) => [file, readFileSync(join(home.home, file))]));
  const appBefore = readFileSync(join(home.home, 'config', 'app.toml'));
  const configBefore = readFileSync(join(home.home, 'config', 'config.toml'));

  const run = await runStratad(['migrate', 'evm-ss-split', '--rpc', net.rpcUrl, '--trust-delta', '3', '--yes', '--home', home.home, '--ready-timeout', '300'], 400_000);
  t.equal(run.status, 0, 'migration succeeds', { stdout: run.stdout, stderr: run.stderr });
  const pid = startedPid(t, run);

  // Backups: a timestamped folder with the exact bytes of every file carried across the wipe.
  const backupDir = /backed up \d+ files to (\S+)/.exec(run.stdout)?.[1];
  t.ok(backupDir !== undefined && existsSync(backupDir), `the backup folder is printed: ${backupDir}`);
  t.match(backupDir, /migrate-backup-\d{8}T\d{6}Z$/);
  for (const [file, bytes] of before) {
    t.same(readFileSync(join(backupDir!, file.split('/').pop()!)), bytes, `${file} is backed up byte for byte`);
    t.same(readFileSync(join(home.home, file)), bytes, `${file} is restored byte for byte`);
  }
  t.same(readFileSync(join(backupDir!, 'app.toml')), appBefore, 'app.toml is backed up');
  t.same(readFileSync(join(backupDir!, 'config.toml')), configBefore, 'config.toml is backed up');

  // Settings: the split on, state sync from the trusted node.
  const config = await loadConfig(home.home);
  t.equal(config.app.stateStore.evmSsSplit, true, 'evm-ss-split = true');
  t.equal(config.app.stateStore.backend, 'pebbledb', 'ss-backend unchanged without --backend');
  const { statesync } = config.node;
  t.equal(statesync.enable, true, '[statesync] enable = true');
  t.same(statesync.rpcServers, [net.rpcUrl, net.rpcUrl], 'the one --rpc server is both primary and witness');
  const printedHeight = Number(/trust height (\d+)/.exec(run.stdout)?.[1]);
  t.equal(statesync.trustHeight, printedHeight, 'the printed trust height is the one written');
  const trustedLatest = Number(/latest height (\d+)/.exec(run.stdout)?.[1]);
  t.equal(statesync.trustHeight, trustedLatest - 3, 'trust-height is the trusted node\'s latest height minus --trust-delta');
  const block = await consensus(net.validator, `/block?height=${statesync.trustHeight}`);
  t.equal(statesync.trustHash, ((block.result.block_id as { hash: string }).hash).toLowerCase(), 'trust-hash is the trusted node\'s block hash at trust-height');
  t.same(config.node.persistentPeers[0], { nodeId: net.validator.nodeId, host: '127.0.0.1', port: net.validator.p2p }, 'the trusted node is the first persistent peer');
  t.equal(config.node.moniker, 'test-node', 'the moniker is kept');
  t.equal(config.app.evm.httpPort, home.http, 'the other settings are kept');

  // The started node: the three log lines and a trace of the latest block.
  const logFile = /log (\S+\.log)/.exec(run.stdout)?.[1];
  t.ok(logFile !== undefined && existsSync(logFile), `the log file is printed: ${logFile}`);
  const log = readFileSync(logFile!, 'utf8');
  for (const line of ['StrataDB SS is enabled', 'StrataDB EVM StateStore optimization is enabled', 'EVM state store enabled']) t.match(log, line);
  const trace = await evmCall(home.http, 'debug_traceBlockByNumber', ['latest', {}]);
  t.ok('result' in trace && trace.error === undefined, 'debug_traceBlockByNumber("latest", {}) answers a result');
  t.ok(readdirSync(join(home.home, 'data', 'evm_ss')).length > 0, 'data/evm_ss/ exists');

  // --disable while the node runs is refused and changes nothing.
  const running = await runStratad(['migrate', 'evm-ss-split', '--disable', '--home', home.home]);
  t.equal(running.status, 1);
  t.match(running.stderr, /node running.*resource temporarily unavailable.*Fix: stop the node first/s);
  t.equal((await loadConfig(home.home)).app.stateStore.evmSsSplit, true, 'the split stays on');

  // A second pass switches ss-backend (the way a backend switch is done).
  await stopPid(pid);
  const again = await runStratad(['migrate', 'evm-ss-split', '--rpc', net.rpcUrl, '--backend', 'rocksdb', '--trust-delta', '2', '--yes', '--home', home.home, '--ready-timeout', '300'], 400_000);
  t.equal(again.status, 0, 'the backend switch succeeds', { stdout: again.stdout, stderr: again.stderr });
  const pid2 = startedPid(t, again);
  t.match(again.stdout, /ss-backend = "rocksdb" \(was "pebbledb"\)/, 'the plan names the switch');
  t.equal((await loadConfig(home.home)).app.stateStore.backend, 'rocksdb');
  t.ok(existsSync(join(home.home, 'data', 'rocksdb')), 'the Cosmos SS is a RocksDB store');
  t.notOk(existsSync(join(home.home, 'data', 'pebbledb')), 'the old backend directory was wiped');
  for (const [file, bytes] of before) t.same(readFileSync(join(home.home, file)), bytes, `${file} survives the second pass`);

  // --disable on the stopped node.
  await stopPid(pid2);
  const disabled = await runStratad(['migrate', 'evm-ss-split', '--disable', '--home', home.home]);
  t.equal(disabled.status, 0, disabled.stderr);
  t.equal((await loadConfig(home.home)).app.stateStore.evmSsSplit, false, 'evm-ss-split = false');
  t.notOk(existsSync(join(home.home, 'data', 'evm_ss')), 'data/evm_ss/ is deleted');
  t.ok(existsSync(join(home.home, 'data', 'rocksdb')), 'the Cosmos SS stays');
});
