/**
 * Per-stage block timings and admission timings of a real validator: transfers submitted over
 * JSON-RPC are admitted (each timed as sender recovery and the rest), blocks are produced, and
 * `/metrics` then holds one observation per block of every stage (execute, sc_commit, ss_apply,
 * sign, block_store) and one per admitted transaction of each admission stage; the debug log
 * carries one line per block with the same stage times.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { signTransfers } from '../../bench/node/transfers.js';
import { DEFAULT_EVM_CHAIN_ID, devAccounts } from '../../src/chain/genesis-file.js';
import { loadConfig, renderConfigToml } from '../../src/config/index.js';
import { parseExposition, sampleKey, type Scrape } from '../observe/fixtures/prometheus.js';
import { waitUntil } from '../sync/fixtures/network.js';
import { initHome, startNode } from './fixtures/node-process.js';
import { rpcResult } from './fixtures/rpc-client.js';

const STAGES = ['execute', 'sc_commit', 'ss_apply', 'sign', 'block_store'] as const;
const SENDERS = 10;
const PER_SENDER = 3;

t.test('block stage and admission timings on /metrics and in the log', async (t) => {
  const home = await initHome(t, 300);
  const config = await loadConfig(home.home);
  writeFileSync(join(home.home, 'config', 'config.toml'), renderConfigToml({ ...config.node, logLevel: 'debug', logFormat: 'json' }));
  const port = config.node.instrumentation.prometheusListenAddr.port;
  const run = await startNode(t, home);
  const scrape = async (): Promise<Scrape> => parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  const value = (s: Scrape, name: string, labels?: Record<string, string>): number => s.samples.get(sampleKey(name, labels)) ?? 0;
  const height = async (): Promise<number> => Number(await rpcResult(home.http, 'eth_blockNumber'));

  const before = await scrape();
  t.equal(before.types.get('strata_admission_seconds'), 'histogram', 'admission is a histogram');
  t.equal(value(before, 'strata_admission_seconds_count', { stage: 'recover' }), 0, 'nothing admitted yet');

  const raws = signTransfers(devAccounts(SENDERS), PER_SENDER, DEFAULT_EVM_CHAIN_ID, 'stage-metrics');
  for (const raw of raws) t.match(String(await rpcResult(home.http, 'eth_sendRawTransaction', [raw])), /^0x[0-9a-f]{64}$/, 'admitted');
  const submittedAt = await height();
  await waitUntil('three more blocks', async () => (await height()) >= submittedAt + 3);

  const low = await height();
  const after = await scrape();
  const high = await height();
  for (const stage of STAGES) {
    const count = value(after, 'strata_block_stage_duration_seconds_count', { stage });
    const sum = value(after, 'strata_block_stage_duration_seconds_sum', { stage });
    // Every block from 1 was produced by this node: one observation per block of every stage.
    t.ok(count >= low && count <= high, `${stage}: ${count} observations for the ${low}…${high} blocks`);
    t.ok(sum > 0, `${stage} took time (${(sum * 1000).toFixed(1)} ms in all)`);
    t.ok(count > value(before, 'strata_block_stage_duration_seconds_count', { stage }), `${stage} grew with the blocks`);
    t.ok(value(after, 'strata_block_stage_duration_seconds_bucket', { stage, le: '+Inf' }) === count, `${stage}: +Inf bucket = count`);
  }
  for (const stage of ['recover', 'checks']) {
    t.equal(value(after, 'strata_admission_seconds_count', { stage }), raws.length, `${stage}: one observation per admitted transaction`);
    t.ok(value(after, 'strata_admission_seconds_sum', { stage }) > 0, `${stage} took time`);
  }

  // One debug line per produced block with every stage's milliseconds.
  const lines = run
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.msg === 'block stage times (ms)');
  t.ok(lines.length >= low, `${lines.length} stage lines for ${low} blocks`);
  const withTxs = lines.filter((l) => Number(l.txs) > 0);
  t.equal(withTxs.reduce((n, l) => n + Number(l.txs), 0), raws.length, 'the lines account for every transfer');
  for (const line of lines) {
    for (const stage of STAGES) t.type(line[stage], 'number', `height ${String(line.height)}: ${stage} is logged`);
  }
  t.ok(withTxs.every((l) => Number(l.execute) > 0), 'a block with transfers shows execution time');
  t.equal(await run.stop(), 0);
});
