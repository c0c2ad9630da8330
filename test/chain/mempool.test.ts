/**
 * Mempool ordering, gaps, replacement, TTL expiry, the size limit and the invalid cache.
 * Txs here are JSON descriptions; the admission check (the app's job) reads them back.
 */
import t from 'tap';
import {
  AlreadyKnownError,
  Mempool,
  MempoolFullError,
  ReplacementUnderpricedError,
  CheckTxRejectedError,
  SenderLimitError,
  TxTooLargeError,
  type CheckResult,
  type MempoolOptions,
} from '../../src/chain/mempool.js';

interface FakeTx {
  sender: string;
  nonce: number;
  fee?: number;
  gas?: number;
  invalid?: string;
}

const tx = (fields: FakeTx): Buffer => Buffer.from(JSON.stringify(fields));

/** A pool whose account nonces come from `nonces`, with a controllable clock. */
function pool(overrides: Partial<MempoolOptions> = {}) {
  const nonces = new Map<string, bigint>();
  const clock = { now: 1_000_000 };
  let checks = 0;
  const check = (raw: Uint8Array): CheckResult => {
    checks++;
    const f = JSON.parse(Buffer.from(raw).toString()) as FakeTx;
    if (f.invalid) return { ok: false, reason: f.invalid };
    return { ok: true, tx: { sender: f.sender, nonce: BigInt(f.nonce), fee: BigInt(f.fee ?? 1), gasLimit: BigInt(f.gas ?? 21000) } };
  };
  const mempool = new Mempool({
    size: 100,
    ttlDurationMs: 0,
    ttlNumBlocks: 0,
    keepInvalidTxsInCache: false,
    check,
    accountNonce: (sender) => nonces.get(sender) ?? 0n,
    now: () => clock.now,
    ...overrides,
  });
  return { mempool, nonces, clock, checks: () => checks };
}

const order = (txs: { sender: string; nonce: bigint }[]): string[] => txs.map((x) => `${x.sender}:${x.nonce}`);

t.test('reaps per sender in nonce order, senders by fee', async (t) => {
  const { mempool } = pool();
  await mempool.add(tx({ sender: '0xa', nonce: 1, fee: 50 }));
  await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 5 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0, fee: 10 }));
  await mempool.add(tx({ sender: '0xb', nonce: 1, fee: 1 }));
  // a:0 (fee 5) must precede a:1 (fee 50) despite the fee; b:0 (10) beats a:0 (5).
  t.same(order(mempool.reap(10_000_000n, 10)), ['0xb:0', '0xa:0', '0xa:1', '0xb:1']);
  t.same(order(mempool.reap(10_000_000n, 2)), ['0xb:0', '0xa:0']);
});

t.test('a nonce gap makes later txs future until it is filled', async (t) => {
  const { mempool } = pool();
  await mempool.add(tx({ sender: '0xa', nonce: 0 }));
  await mempool.add(tx({ sender: '0xa', nonce: 2 }));
  t.same(mempool.stats(), { total: 2, executable: 1, future: 1 });
  t.same(order(mempool.reap(10_000_000n, 10)), ['0xa:0']);
  t.equal(mempool.pendingNonce('0xA'), 1n);
  await mempool.add(tx({ sender: '0xa', nonce: 1 }));
  t.same(order(mempool.reap(10_000_000n, 10)), ['0xa:0', '0xa:1', '0xa:2']);
  t.equal(mempool.pendingNonce('0xa'), 3n);
});

t.test('the next nonce stays right through adds, replacements, inclusion, eviction and a nonce moving back', async (t) => {
  const { mempool, nonces, clock } = pool({ size: 40, maxTxsPerSender: 12, ttlDurationMs: 5_000 });
  const senders = ['0xa', '0xb', '0xc'];
  let seed = 11;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The high bits: an LCG's low bits repeat with a short period.
    return Math.floor(seed / 65_536) % n;
  };
  // What the pool should answer: the account nonce, then every held nonce without a gap.
  const expected = (sender: string): bigint => {
    const held = new Set(mempool.txs().filter((x) => x.sender === sender).map((x) => x.nonce));
    let n = nonces.get(sender) ?? 0n;
    while (held.has(n)) n++;
    return n;
  };
  let checks = 0;
  for (let step = 0; step < 3_000; step++) {
    const sender = senders[random(senders.length)]!;
    const action = random(10);
    const base = nonces.get(sender) ?? 0n;
    if (action < 6) {
      await mempool.add(tx({ sender, nonce: Number(base) + random(8), fee: 1 + random(5), gas: step })).catch(() => undefined);
    } else if (action === 6) {
      // Some txs were included: the account nonce moves on and the pool drops what it covers.
      nonces.set(sender, base + BigInt(random(4)));
      mempool.update(step, []);
    } else if (action === 7) {
      nonces.set(sender, base > 0n ? base - 1n : 0n);
      mempool.update(step, []);
    } else if (action === 8) {
      clock.now += random(3_000);
      mempool.evictExpired();
    }
    for (const s of senders) {
      if (mempool.pendingNonce(s) !== expected(s)) t.fail(`step ${step}: ${s}'s next nonce ${mempool.pendingNonce(s)}, expected ${expected(s)}`);
      checks++;
    }
  }
  const stats = mempool.stats();
  const executable = senders.reduce((sum, s) => sum + Number(expected(s) - (nonces.get(s) ?? 0n)), 0);
  t.equal(stats.executable, executable, 'stats count the executable runs');
  t.equal(checks, 9_000);
  t.ok(mempool.size > 0, 'the pool held txs at the end');
});

t.test('a reap over many senders picks, each time, the highest-fee next tx of any sender', async (t) => {
  const { mempool } = pool({ size: 2_000, maxTxsPerSender: 16 });
  // 300 senders, up to 5 txs each, fees drawn with many ties, gas limits so some do not fit.
  let seed = 7;
  const random = (n: number): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n);
  const queues: Array<{ sender: string; txs: Array<{ nonce: number; fee: number; gas: number }> }> = [];
  for (let s = 0; s < 300; s++) {
    const sender = `0x${s.toString(16)}`;
    const txs = Array.from({ length: 1 + random(5) }, (_, nonce) => ({ nonce, fee: 1 + random(20), gas: 21_000 + 1_000 * random(100) }));
    queues.push({ sender, txs });
    for (const f of txs) await mempool.add(tx({ sender, ...f }));
  }
  const maxGas = 20_000_000n;
  // The rule, one scan of every sender per pick: highest fee first, ties to the sender that came first.
  const expected: string[] = [];
  const heads = queues.map((q) => ({ ...q, next: 0 }));
  let gas = 0n;
  while (expected.length < 700 && heads.length > 0) {
    let best = 0;
    for (let i = 1; i < heads.length; i++) if (heads[i]!.txs[heads[i]!.next]!.fee > heads[best]!.txs[heads[best]!.next]!.fee) best = i;
    const head = heads[best]!;
    const next = head.txs[head.next]!;
    if (gas + BigInt(next.gas) > maxGas) {
      heads.splice(best, 1);
      continue;
    }
    gas += BigInt(next.gas);
    expected.push(`${head.sender}:${next.nonce}`);
    if (++head.next === head.txs.length) heads.splice(best, 1);
  }
  const reaped = order(mempool.reap(maxGas, 700));
  t.ok(reaped.length > 200, `a sizeable block is reaped (${reaped.length} txs)`);
  t.same(reaped, expected, 'in the order the rule gives');
});

t.test('reap respects the gas limit and skips only the sender that does not fit', async (t) => {
  const { mempool } = pool();
  await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 9, gas: 80_000 }));
  await mempool.add(tx({ sender: '0xa', nonce: 1, fee: 9, gas: 21_000 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0, fee: 1, gas: 21_000 }));
  t.same(order(mempool.reap(50_000n, 10)), ['0xb:0']);
  t.same(order(mempool.reap(101_000n, 10)), ['0xa:0', '0xa:1']);
});

t.test('replacement needs a higher fee', async (t) => {
  const { mempool } = pool();
  const first = await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 10 }));
  await t.rejects(mempool.add(tx({ sender: '0xa', nonce: 0, fee: 10, gas: 30000 })), ReplacementUnderpricedError);
  const second = await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 11 }));
  t.equal(mempool.size, 1);
  t.notOk(mempool.has(first.hash));
  t.ok(mempool.has(second.hash));
  t.equal(mempool.reap(10_000_000n, 10)[0]!.fee, 11n);
});

t.test('duplicates are "already known"', async (t) => {
  const { mempool } = pool();
  await mempool.add(tx({ sender: '0xa', nonce: 0 }));
  await t.rejects(mempool.add(tx({ sender: '0xa', nonce: 0 })), { constructor: AlreadyKnownError, message: 'already known' });
});

t.test('a full pool refuses new txs with a clear error but allows replacement', async (t) => {
  const { mempool } = pool({ size: 2 });
  await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 1 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0, fee: 1 }));
  const error = await mempool.add(tx({ sender: '0xc', nonce: 0 })).catch((e: unknown) => e);
  t.type(error, MempoolFullError);
  t.equal((error as Error).message, 'mempool is full: 2 txs; try again later');
  await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 2 }));
  t.equal(mempool.size, 2);
});

t.test('a full pool makes room for a higher fee by evicting the cheapest tail tx of another sender', async (t) => {
  const { mempool } = pool({ size: 3 });
  await mempool.add(tx({ sender: '0xa', nonce: 0, fee: 5 }));
  await mempool.add(tx({ sender: '0xa', nonce: 1, fee: 1 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0, fee: 3 }));
  // The cheapest tx is 0xa's nonce 1, its last: evicting it leaves no gap.
  const rich = await mempool.add(tx({ sender: '0xc', nonce: 0, fee: 4 }));
  t.equal(mempool.size, 3);
  t.ok(mempool.has(rich.hash));
  t.equal(mempool.pendingNonce('0xa'), 1n, "0xa's nonce-1 tx was evicted, its nonce-0 tx stays");
  // Now the cheapest tail is 0xb's (fee 3): a tx paying no more than that is refused.
  const error = await mempool.add(tx({ sender: '0xd', nonce: 0, fee: 3 })).catch((e: unknown) => e);
  t.type(error, MempoolFullError, 'a fee not above the cheapest is refused, nothing evicted');
  t.equal(mempool.size, 3);
  await mempool.add(tx({ sender: '0xd', nonce: 0, fee: 10 }));
  t.equal(mempool.pendingNonce('0xb'), 0n, "0xb's only tx made room for the higher fee");
  // A sender never evicts its own txs to make room.
  const { mempool: own } = pool({ size: 2 });
  await own.add(tx({ sender: '0xa', nonce: 0, fee: 1 }));
  await own.add(tx({ sender: '0xa', nonce: 1, fee: 1 }));
  t.type(await own.add(tx({ sender: '0xa', nonce: 2, fee: 9 })).catch((e: unknown) => e), MempoolFullError);
});

t.test('one sender cannot hold more than max-txs-per-sender txs', async (t) => {
  const { mempool } = pool({ size: 1000, maxTxsPerSender: 4 });
  for (let nonce = 0; nonce < 4; nonce++) await mempool.add(tx({ sender: '0xa', nonce }));
  const error = await mempool.add(tx({ sender: '0xa', nonce: 4 })).catch((e: unknown) => e);
  t.type(error, SenderLimitError);
  t.match((error as Error).message, /^account limit exceeded: 0xa has 4 pending transactions \(max-txs-per-sender\)/);
  await mempool.add(tx({ sender: '0xa', nonce: 3, fee: 2 }));
  t.equal(mempool.size, 4, 'replacing one of them is still allowed');
  await mempool.add(tx({ sender: '0xb', nonce: 0 }));
  t.equal(mempool.size, 5, 'other senders are not affected');
  const { mempool: defaults } = pool({ size: 1000 });
  for (let nonce = 0; nonce < 80; nonce++) await defaults.add(tx({ sender: '0xa', nonce }));
  t.type(await defaults.add(tx({ sender: '0xa', nonce: 80 })).catch((e: unknown) => e), SenderLimitError, 'the default is 80 (geth: 16 executable + 64 queued)');
});

t.test('update drops included txs and txs made stale by the new nonce', async (t) => {
  const { mempool, nonces } = pool();
  const a0 = tx({ sender: '0xa', nonce: 0 });
  await mempool.add(a0);
  await mempool.add(tx({ sender: '0xa', nonce: 1 }));
  await mempool.add(tx({ sender: '0xa', nonce: 2 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0 }));
  // Block 1 included a:0 and, from elsewhere, a:1 with a different body.
  nonces.set('0xa', 2n);
  mempool.update(1, [a0]);
  t.same(order(mempool.txs()), ['0xa:2', '0xb:0']);
  t.same(mempool.stats(), { total: 2, executable: 2, future: 0 });
  await t.rejects(mempool.add(tx({ sender: '0xa', nonce: 1, fee: 99 })), { constructor: CheckTxRejectedError, message: /nonce too low/ });
});

t.test('ttl-duration evicts txs older than the duration', async (t) => {
  const { mempool, clock } = pool({ ttlDurationMs: 5_000 });
  await mempool.add(tx({ sender: '0xa', nonce: 0 }));
  clock.now += 3_000;
  await mempool.add(tx({ sender: '0xb', nonce: 0 }));
  clock.now += 2_500; // a is 5.5 s old, b 2.5 s
  t.same(order(mempool.reap(10_000_000n, 10)), ['0xb:0']);
  t.equal(mempool.size, 1);
  clock.now += 3_000;
  t.equal(mempool.evictExpired(), 1);
  t.equal(mempool.size, 0);
});

t.test('ttl-num-blocks evicts txs that waited more than N blocks', async (t) => {
  const { mempool } = pool({ ttlNumBlocks: 2, height: 10 });
  await mempool.add(tx({ sender: '0xa', nonce: 0 }));
  mempool.update(11, []);
  await mempool.add(tx({ sender: '0xb', nonce: 0 }));
  mempool.update(12, []);
  t.equal(mempool.size, 2, 'two blocks later both remain');
  mempool.update(13, []);
  t.same(order(mempool.txs()), ['0xb:0']);
  mempool.update(14, []);
  t.equal(mempool.size, 0);
});

t.test('keep-invalid-txs-in-cache remembers rejections without re-checking', async (t) => {
  const bad = tx({ sender: '0xa', nonce: 0, invalid: 'insufficient funds for gas * price + value' });
  const cached = pool({ keepInvalidTxsInCache: true });
  await t.rejects(cached.mempool.add(bad), { constructor: CheckTxRejectedError, message: /insufficient funds/ });
  await t.rejects(cached.mempool.add(bad), /insufficient funds/);
  t.equal(cached.checks(), 1, 'the second refusal came from the cache');

  const uncached = pool({ keepInvalidTxsInCache: false });
  await t.rejects(uncached.mempool.add(bad), CheckTxRejectedError);
  await t.rejects(uncached.mempool.add(bad), CheckTxRejectedError);
  t.equal(uncached.checks(), 2);
});

t.test('the invalid cache forgets its oldest entries past its size', async (t) => {
  const { mempool, checks } = pool({ keepInvalidTxsInCache: true, invalidCacheSize: 2 });
  const bad = (n: number): Buffer => tx({ sender: '0xa', nonce: n, invalid: 'bad' });
  for (const n of [1, 2, 3]) await mempool.add(bad(n)).catch(() => undefined);
  await mempool.add(bad(1)).catch(() => undefined);
  t.equal(checks(), 4, 'tx 1 was evicted from the cache and checked again');
  await mempool.add(bad(3)).catch(() => undefined);
  t.equal(checks(), 4);
});

t.test('oversized txs are refused before the check', async (t) => {
  const { mempool, checks } = pool({ maxTxBytes: 10 });
  await t.rejects(mempool.add(tx({ sender: '0xa', nonce: 0 })), TxTooLargeError);
  t.equal(checks(), 0);
});

t.test('content splits pending from queued behind a gap, and listeners hear each admitted tx', async (t) => {
  const { mempool } = pool();
  const admitted: string[] = [];
  const stop = mempool.onAdmitted((added) => admitted.push(`${added.sender}:${added.nonce}`));
  await mempool.add(tx({ sender: '0xa', nonce: 3 }));
  await mempool.add(tx({ sender: '0xa', nonce: 0 }));
  await mempool.add(tx({ sender: '0xb', nonce: 0 }));
  await mempool.add(tx({ sender: '0xa', nonce: 1 }));
  const content = mempool.content();
  t.same(order(content.pending), ['0xa:0', '0xa:1', '0xb:0'], 'runnable without a gap, by sender then nonce');
  t.same(order(content.queued), ['0xa:3'], 'behind the gap at nonce 2');
  await t.rejects(mempool.add(tx({ sender: '0xb', nonce: 0 })), AlreadyKnownError);
  t.same(admitted, ['0xa:3', '0xa:0', '0xb:0', '0xa:1'], 'each admitted tx once; the refused one not at all');
  stop();
  await mempool.add(tx({ sender: '0xc', nonce: 0 }));
  t.equal(admitted.length, 4, 'nothing after the listener stopped');
});

t.test("a check that answers at once hands over the sender's nonce it read; an awaited check's is read again", async (t) => {
  let reads = 0;
  const options = (check: MempoolOptions['check']): MempoolOptions => ({
    size: 10,
    ttlDurationMs: 0,
    ttlNumBlocks: 0,
    keepInvalidTxsInCache: false,
    check,
    accountNonce: () => {
      reads++;
      return 3n;
    },
  });
  const checked = (nonce: number): CheckResult => ({ ok: true, tx: { sender: '0xa', nonce: BigInt(nonce), fee: 1n, gasLimit: 21000n }, accountNonce: 5n });

  const sync = new Mempool(options((raw) => checked(Number(Buffer.from(raw).toString()))));
  await t.rejects(sync.add(Buffer.from('4')), /nonce too low: next nonce 5, tx nonce 4/, "the check's nonce decides");
  await sync.add(Buffer.from('5'));
  t.equal(sync.pendingNonce('0xa'), 6n, 'the queue starts at the nonce the check read');
  t.equal(reads, 0, 'no second read of the account nonce');

  // A block can commit while the check awaits: the nonce it read may be old by then.
  const later = new Mempool(options(async (raw) => checked(Number(Buffer.from(raw).toString()))));
  await later.add(Buffer.from('3'));
  t.equal(reads, 1, 'read again after an awaited check');
  t.equal(later.pendingNonce('0xa'), 4n, 'and the fresh nonce (3) is the one kept');
});
