/**
 * Tracing a block's transactions one at a time resumes the block's replay where the previous
 * trace stopped instead of replaying from the start; the traces must be exactly those of a
 * fresh replay, in any order of requests, and a block re-executed after a rollback must not
 * resume the replay of the block it replaced.
 */
import t from 'tap';
import { encodeDeployData, encodeFunctionData } from 'viem';

import type { ExecutionContext } from '../../src/app/execution-context.js';
import { createTracer, type JsonValue } from '../../src/trace/index.js';
import { PausedReplays, traceBlockTxs } from '../../src/trace/replay/index.js';
import { TOKEN, bytes, header, openApp, signTx, tempDir, testGenesis, testKey, transfer } from '../fixtures/chain.js';
import { stateOf } from '../helpers/state.js';

const alice = testKey(0);
const bob = testKey(1);
const carol = testKey(2);

t.test('per-transaction traces resume a paused replay and match a whole-block trace', async (t) => {
  const app = await openApp(tempDir(t), testGenesis([alice, bob]));
  t.teardown(() => app.close());
  await app.initChain();
  await app.executeBlock(header(1), []);
  const deploy = signTx(alice, { nonce: 0, gasLimit: 2_000_000n, data: bytes(encodeDeployData({ abi: TOKEN.abi, bytecode: TOKEN.bytecode, args: ['T', 'T', 1000n] })) });
  const first = (await app.executeBlock(header(2), [deploy])).txs[0]!;
  if (first.kind !== 'executed' || !first.receipt.contractAddress) throw new Error('deploy failed');
  const token = first.receipt.contractAddress;
  const send = (nonce: number, amount: bigint) =>
    signTx(alice, { nonce, to: token, gasLimit: 100_000n, data: bytes(encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [carol.hex, amount] })) });
  const txs = [send(1, 10n), transfer(bob, carol.address, 5n, 0), send(2, 20n), send(3, 30n), transfer(bob, alice.address, 7n, 1)];
  await app.executeBlock(header(3), txs);
  const paused = new PausedReplays();
  const context = () => app.ownExecutionContext(header(3), new Uint8Array(32).fill(3));
  const parent = () => stateOf(app).at(2, { pinned: true }).view;

  /** Contexts made for replays: a resumed replay needs none. */
  let contextsMade = 0;
  const replayed = (of: ExecutionContext, rawTxs: Uint8Array[]) => ({
    hash: of.blockHash,
    txs: rawTxs,
    context: () => {
      contextsMade++;
      return of;
    },
  });
  async function traceOne(index: number, tracer: string, of: ExecutionContext = context(), rawTxs = txs): Promise<JsonValue> {
    const one = createTracer(tracer);
    const [traced] = await traceBlockTxs(paused, replayed(of, rawTxs), parent, { tracerFor: (i) => (i === index ? one : undefined), lastIndex: index, firstTraced: index });
    return traced!.result;
  }
  for (const tracer of ['prestateTracer', 'callTracer']) {
    const whole = (await traceBlockTxs(paused, replayed(context(), txs), parent, { tracerFor: () => createTracer(tracer) })).map((x) => x.result);
    t.equal(whole.length, 5);
    const inOrder: JsonValue[] = [];
    contextsMade = 0;
    for (let i = 0; i < txs.length; i++) inOrder.push(await traceOne(i, tracer));
    t.same(inOrder, whole, `${tracer}: one by one in order (resumed) equals the whole block`);
    t.equal(contextsMade, 1, `${tracer}: the in-order traces made one replay, and so one execution context`);
    const reversed: JsonValue[] = [];
    for (let i = txs.length - 1; i >= 0; i--) reversed.unshift(await traceOne(i, tracer));
    t.same(reversed, whole, `${tracer}: one by one in reverse (replayed) equals the whole block`);
    const repeated = [await traceOne(2, tracer), await traceOne(2, tracer), await traceOne(3, tracer)];
    t.same(repeated, [whole[2], whole[2], whole[3]], `${tracer}: the same transaction twice, then the next`);
  }

  // The paused replay of the old block 3 must not serve the re-executed one, which has
  // other transactions and so another hash.
  await traceOne(1, 'prestateTracer');
  await app.rollback(2);
  const replaced = [transfer(bob, carol.address, 99n, 0), transfer(bob, carol.address, 1n, 1), send(1, 1n)];
  await app.executeBlock(header(3), replaced);
  const replacedContext = app.ownExecutionContext(header(3), new Uint8Array(32).fill(0x33));
  // Resumed from the old block's replay, alice's nonce would already be 2 and this would throw.
  t.match(await traceOne(2, 'callTracer', replacedContext, replaced), { to: `0x${Buffer.from(token).toString('hex')}`, type: 'CALL' }, 'the replaced block is replayed from its own start');
});
