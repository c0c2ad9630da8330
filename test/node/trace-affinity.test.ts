/**
 * Tracing a block's transactions in order on several trace workers: each trace goes to the
 * worker that traced the one before it, whose replay of the block is paused right there, so
 * no worker re-runs the transactions another one already ran. A real validator with two
 * execution workers; a block of 10 transfers, 8 of them traced in one batch (as explorers and indexers
 * do), the work counted by `strata_trace_replayed_transactions_total`, and the answers
 * compared with the same traces asked one at a time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig, renderAppToml, renderConfigToml } from '../../src/config/index.js';
import { initHome, startNode } from './fixtures/node-process.js';
import { rawRpc, rpcResultOf } from './fixtures/rpc-client.js';

/** One from each development account the test genesis funds. */
const TRANSFERS = 10;
/** Traces in the batch: `max-concurrent-traces` (8 by default) run at once, more are refused. */
const TRACED = 8;
const BLOCK_MS = 300;

type Answer = { id: number; result?: unknown; error?: unknown };

t.test('a block traced in order on two workers replays none of its transactions twice', async (t) => {
  const home = await initHome(t, BLOCK_MS);
  const config = await loadConfig(home.home);
  writeFileSync(join(home.home, 'config', 'app.toml'), renderAppToml({ ...config.app, evm: { ...config.app.evm, executionWorkers: 2 } }));
  const instrumentation = { ...config.node.instrumentation, prometheus: true };
  writeFileSync(join(home.home, 'config', 'config.toml'), renderConfigToml({ ...config.node, instrumentation }));
  const metricsUrl = `http://127.0.0.1:${instrumentation.prometheusListenAddr.port}/metrics`;
  const replayed = async (): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    const match = /^strata_trace_replayed_transactions_total\{pool="traces"\} (\d+)$/m.exec(text);
    if (!match) throw new Error('strata_trace_replayed_transactions_total{pool="traces"} is not exposed');
    return Number(match[1]);
  };
  const node = await startNode(t, home);
  t.teardown(() => node.stop());

  // One transfer from each of 10 accounts, admitted in one batch: they land in one block.
  const chainId = Number(await rpcResultOf<string>(home.http, 'eth_chainId'));
  const raws = await Promise.all(
    devAccounts(TRANSFERS).map((dev, i) =>
      privateKeyToAccount(dev.privateKey as Hex).signTransaction({
        type: 'eip1559',
        chainId,
        nonce: 0,
        to: `0x${(0xc0ffee00 + i).toString(16).padStart(40, '0')}`,
        value: 1000n,
        gas: 21_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }),
    ),
  );
  const sent = (await rawRpc(home.http, JSON.stringify(raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))))).json as Answer[];
  const hashes = sent.sort((a, b) => a.id - b.id).map((a) => a.result as string);
  t.equal(hashes.filter((h) => typeof h === 'string').length, TRANSFERS, 'every transfer is accepted');
  let receipts: Array<{ blockNumber: string } | null> = [];
  for (let i = 0; i < 100 && (receipts.length === 0 || receipts.includes(null)); i++) {
    receipts = await Promise.all(hashes.map((h) => rpcResultOf<{ blockNumber: string } | null>(home.http, 'eth_getTransactionReceipt', [h])));
    if (receipts.includes(null)) await sleep(100);
  }
  t.equal(new Set(receipts.map((r) => r?.blockNumber)).size, 1, 'all of them are in one block');

  const before = await replayed();
  const traces = hashes.slice(0, TRACED).map((hash, id) => ({ jsonrpc: '2.0', id, method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] }));
  const batch = ((await rawRpc(home.http, JSON.stringify(traces))).json as Answer[]).sort((a, b) => a.id - b.id);
  t.same(batch.filter((a) => a.error !== undefined), [], 'every trace of the batch succeeds');
  const rerun = (await replayed()) - before;
  // Spread over the two workers turn by turn, each trace would first re-run the transaction the other worker traced: 7.
  t.ok(rerun < TRACED / 4, `tracing the block in order re-ran ${rerun} of its transactions (spread without affinity: ${TRACED - 1})`);

  for (const [i, hash] of hashes.slice(0, TRACED).entries()) {
    t.same(await rpcResultOf(home.http, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }]), batch[i]!.result, `trace ${i} alone equals its trace in the batch`);
  }
  t.match(batch[3]!.result, { type: 'CALL', to: '0x00000000000000000000000000000000c0ffee03', value: '0x3e8' }, 'and each is the trace of its own transfer');
});
