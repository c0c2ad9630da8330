/**
 * `rpc-evm-timeout` bounds a whole eth_simulateV1 (all its blocks and calls together) and an
 * eth_createAccessList (all its rounds), as it bounds one eth_call: both run on the call
 * workers, whose EVM stops at the deadline, so the workers keep serving without a restart.
 */
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, loadConfig, renderAppToml } from '../../src/config/index.js';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { initHome, startNode } from '../node/fixtures/node-process.js';
import { rpcCall as call } from '../node/fixtures/rpc-client.js';


/** JUMPDEST, PUSH1 0, JUMP: loops until its gas runs out. */
const LOOP = '0x5b600056';
const LOOPER = '0x000000000000000000000000000000000000100f';

t.test('rpc-evm-timeout bounds a whole simulation and an access-list computation', async (t) => {
  const home = await initHome(t, 400);
  const config = await loadConfig(home.home);
  const evm = { ...config.app.evm, rpcEvmTimeout: Duration.parse('200ms') };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm }));
  await startNode(t, home);
  const metricsUrl = `http://127.0.0.1:${config.node.instrumentation.prometheusListenAddr.port}/metrics`;
  const workerStarts = async () => Number(/^strata_execution_worker_starts_total\{pool="calls"\} (\d+)$/m.exec(await (await fetch(metricsUrl)).text())?.[1] ?? -1);
  const startsBefore = await workerStarts();
  const from = devAccounts(1)[0]!.address;

  // Eight calls of 5M gas each: none is long alone, together they are far past 200 ms.
  const calls = Array.from({ length: 8 }, () => ({ from, to: LOOPER, gas: '0x4c4b40' }));
  const started = Date.now();
  const simulated = await call(home.http, 'eth_simulateV1', [{ blockStateCalls: [{ stateOverrides: { [LOOPER]: { code: LOOP } }, calls }] }, 'latest']);
  t.same(simulated.error, { code: -32000, message: 'execution aborted (timeout = 200ms)' }, 'the simulation is aborted as geth aborts one');
  t.ok(Date.now() - started < 20_000, 'and answers promptly');

  const listed = await call(home.http, 'eth_createAccessList', [{ from, to: LOOPER, gas: '0x2625a00' }, 'latest', { [LOOPER]: { code: LOOP } }]);
  t.same(listed.error, { code: -32000, message: 'execution aborted (timeout = 200ms)' }, 'eth_createAccessList too');

  // The same worker serves the next request: none was terminated for the aborted ones.
  const short = await call(home.http, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ from, to: from }] }] }, 'latest']);
  t.equal(short.error, undefined, 'the next simulation is served at once');
  t.ok(startsBefore >= 1, `the call pool had started its workers (${startsBefore})`);
  t.equal(await workerStarts(), startsBefore, 'and started no other: the aborted requests stopped inside the EVM');
});
