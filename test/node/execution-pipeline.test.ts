/**
 * A call worker holds several calls at once (the next ones wait in its port while it runs
 * one), and the node routes each answer to its own request: a real validator with one
 * execution worker answers a batch of distinct calls each with its own result, and calls
 * posted behind a call that loops until its deadline are taken back and answered by another
 * worker long before that deadline, not held up or failed with it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Duration, loadConfig, renderAppToml } from '../../src/config/index.js';
import { initHome, startNode, type TestHome } from './fixtures/node-process.js';
import { rawRpc, rpcCall, type RpcAnswer } from './fixtures/rpc-client.js';

const BLOCK_MS = 300;
/** JUMPDEST PUSH1 0 JUMP: runs until the gas runs out or the call's deadline stops it. */
const LOOP = '0x5b600056';

/** One request's answer from `home`'s EVM RPC. */
const call = (home: TestHome, method: string, params: unknown[]): Promise<RpcAnswer> => rpcCall(home.http, method, params);
/** A batch (or any body) posted to `home`'s EVM RPC, its parsed answer. */
const post = async (home: TestHome, body: unknown): Promise<unknown> => (await rawRpc(home.http, JSON.stringify(body))).json;

/** PUSH2 n PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns n as a 32-byte word. */
function returning(n: number): string {
  return `0x61${n.toString(16).padStart(4, '0')}60005260206000f3`;
}

function word(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

async function height(home: TestHome): Promise<number> {
  const status = (await (await fetch(`http://127.0.0.1:${home.rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
  return Number(status.result.sync_info.latest_block_height);
}

t.test('one call worker: every call of a burst gets its own answer, also behind a call stopped at its deadline', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const config = await loadConfig(home.home);
  // A gas cap far above what the loop can burn before its deadline: it is stopped by the deadline.
  const evm = { ...config.app.evm, executionWorkers: 1, rpcEvmTimeout: Duration.parse('20s'), gasCap: 1_000_000_000_000 };
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm }));
  const node = await startNode(t, home);
  t.teardown(() => node.stop());
  while ((await height(home)) < 1) await sleep(50);

  const batch = Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_call', params: [{ data: returning(i + 1) }, 'latest'] }));
  const answers = (await post(home, batch)) as RpcAnswer[];
  t.equal(answers.length, 200, 'a batch of 200 distinct calls is answered in full');
  const wrong = answers.filter((a) => a.result !== word(Number(a.id) + 1));
  t.same(wrong, [], 'each call of the batch has its own return value');

  // The loop starts first; the calls after it are posted to the same worker while it runs.
  const looping = call(home, 'eth_call', [{ data: LOOP }, 'latest']);
  await sleep(100);
  const sent = performance.now();
  const behind = await Promise.all(Array.from({ length: 12 }, (_, i) => call(home, 'eth_call', [{ data: returning(1000 + i) }, 'latest'])));
  const waited = performance.now() - sent;
  t.same(
    behind.map((a) => a.result),
    Array.from({ length: 12 }, (_, i) => word(1000 + i)),
    'the calls sent behind the looping call are all answered, each with its own value',
  );
  t.ok(waited < 15_000, `they are answered before the looping call's deadline (${waited.toFixed(0)} ms)`);
  t.same((await looping).error, { code: -32000, message: 'execution aborted (timeout = 20s)' }, 'the looping call ends at rpc-evm-timeout');
  t.same((await call(home, 'eth_call', [{ data: returning(7) }, 'latest'])).result, word(7), 'and calls keep working afterwards');
});
