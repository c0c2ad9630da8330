/**
 * The eth_call result cache holds a bounded number of bytes, not of entries: calls with
 * megabytes of calldata or of answer are answered but not kept, and many distinct calls evict
 * the oldest. Counting entries alone let 150 distinct calls with 1 MB of calldata each hold
 * hundreds of MiB in their keys, and 16,384 of them would have exhausted the heap.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { CallResultCache, type CallOutcome } from '../../src/app/call-cache.js';
import { loadConfig } from '../../src/config/index.js';
import type { BlockContext } from '../../src/evm/block-context.js';
import { CallRevertedError, type CallRequest } from '../../src/evm/call.js';
import { parseExposition, sampleKey } from '../observe/fixtures/prometheus.js';
import { initHome, startNode } from './fixtures/node-process.js';
import { rpcCall } from './fixtures/rpc-client.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const block: BlockContext = { height: 7, timeMs: 1_700_000_000_000, proposer: new Uint8Array(20).fill(1), baseFee: 7n, gasLimit: 30_000_000n };
const holderCall = (i: number): CallRequest => ({ to: new Uint8Array(20).fill(2), data: Uint8Array.from([0x70, 0xa0, 0x82, 0x31, i >> 24, (i >> 16) & 255, (i >> 8) & 255, i & 255]) });
const answer = (bytes: number): CallOutcome => ({ ok: true, result: { returnData: new Uint8Array(bytes), gasUsed: 21_000n } });

t.test('distinct calls fill the cache up to its byte budget and evict the least recently used', async (t) => {
  const cache = new CallResultCache(256 * KIB);
  t.equal(cache.capacity, 256 * KIB, 'its capacity is the budget');
  const keys: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    const key = cache.key(block, holderCall(i))!;
    keys.push(key);
    cache.set(key, answer(32));
    if (i === 0) t.ok(cache.bytes > 32 + key.length, `one entry counts its key, its answer and an overhead: ${cache.bytes} bytes`);
  }
  t.ok(cache.bytes <= 256 * KIB, `2,000 entries hold ${cache.bytes} bytes, within the 256 KiB budget`);
  t.equal(cache.get(keys[0]!), undefined, 'the first entry was evicted');
  t.same(cache.get(keys[1_999]!), answer(32), 'the last entry is kept');
});

t.test('an answer or calldata larger than a sixty-fourth of the budget is not kept', async (t) => {
  const cache = new CallResultCache(64 * KIB);
  const small = cache.key(block, holderCall(1))!;
  cache.set(small, answer(32));
  const held = cache.bytes;
  const bigAnswer = cache.key(block, holderCall(2))!;
  cache.set(bigAnswer, answer(2 * KIB));
  t.equal(cache.get(bigAnswer), undefined, 'a 2 KiB answer is over the 1 KiB an entry may hold');
  t.equal(cache.bytes, held);
  t.equal(cache.key(block, { ...holderCall(3), data: new Uint8Array(KIB) }), undefined, 'no key is built for 1 KiB of calldata (2 KiB of hex)');
  const reverted = cache.key(block, holderCall(4))!;
  cache.set(reverted, { ok: false, error: new CallRevertedError(new Uint8Array(4 * KIB), undefined) });
  t.equal(cache.get(reverted), undefined, 'a revert with 4 KiB of data is not kept either');
  cache.set(reverted, { ok: false, error: new CallRevertedError(new Uint8Array(4), undefined) });
  t.equal((cache.get(reverted) as { ok: false; error: CallRevertedError }).error.data.length, 4, 'a small revert is');
  t.same(cache.get(small), answer(32), 'what was kept stays');
});

t.test('a budget of 0 turns the cache off', async (t) => {
  const cache = new CallResultCache(0);
  t.equal(cache.key(block, holderCall(1)), undefined);
  t.equal(cache.bytes, 0);
  t.equal(cache.capacity, 0, 'and says it holds nothing');
});

t.test('a node answers calls with 1 MB of calldata without keeping them', async (t) => {
  const home = await initHome(t, 300);
  const metricsPort = (await loadConfig(home.home)).node.instrumentation.prometheusListenAddr.port;
  const run = await startNode(t, home);
  const cacheBytes = async (): Promise<number> => {
    const scrape = parseExposition(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    return scrape.samples.get(sampleKey('strata_call_cache_bytes')) ?? NaN;
  };
  const to = `0x${'11'.repeat(20)}`;
  // A call at genesis has no block header to key it by, so it is never cached: wait for block 1.
  while (Number((await rpcCall(home.http, 'eth_blockNumber')).result) < 1) await sleep(100);
  t.equal(await cacheBytes(), 0, 'nothing called yet');
  const small = await rpcCall(home.http, 'eth_call', [{ to, data: '0x70a08231' }, 'latest']);
  t.equal(small.result, '0x', 'a call to an account without code returns nothing');
  const afterSmall = await cacheBytes();
  t.ok(afterSmall > 0 && afterSmall < 4 * KIB, `a small call is kept: ${afterSmall} bytes`);
  for (let i = 0; i < 20; i++) {
    const data = `0x${i.toString(16).padStart(8, '0')}${'00'.repeat(MIB - 4)}`;
    const big = await rpcCall(home.http, 'eth_call', [{ to, data }, 'latest']);
    t.equal(big.result, '0x', `call ${i} with 1 MiB of calldata is answered`);
  }
  const afterBig = await cacheBytes();
  t.ok(afterBig < afterSmall + 4 * KIB, `20 calls with 1 MiB of calldata added nothing: ${afterBig} bytes held`);
  t.ok(afterBig <= 2 * MIB, 'within the 2 MiB budget');
  t.equal(await run.stop(), 0);
});
