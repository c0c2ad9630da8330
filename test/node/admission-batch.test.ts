/**
 * AdmissionBatch gathers every transaction offered in one turn of the event loop (a JSON-RPC
 * batch, and requests from several connections read in the same turn, which reach it in
 * separate callbacks and microtasks) into one prepared batch, admits them in arrival order,
 * and keeps a later turn's transactions for a batch of their own.
 */
import t from 'tap';

import { AdmissionBatch } from '../../src/node/admission-batch.js';

const raw = (n: number): Uint8Array => Uint8Array.of(n);

t.test('transactions of one turn are prepared together and admitted in order', async (t) => {
  const prepared: number[][] = [];
  const admitted: number[] = [];
  const batch = new AdmissionBatch(async (raws) => {
    prepared.push(raws.map((r) => r[0]!));
  });
  const offer = (n: number): Promise<number> =>
    batch.admit(raw(n), async () => {
      admitted.push(n);
      return n;
    });

  // Three "connections" in one turn: synchronously, after a microtask, and after a tick.
  const answers: Array<Promise<number>> = [offer(1), offer(2)];
  await Promise.resolve();
  answers.push(offer(3));
  await new Promise<void>((resolve) => process.nextTick(resolve));
  answers.push(offer(4));
  t.same(await Promise.all(answers), [1, 2, 3, 4], 'each gets its own answer');
  t.same(prepared, [[1, 2, 3, 4]], 'one prepared batch for the whole turn');
  t.same(admitted, [1, 2, 3, 4], 'admitted in arrival order');

  // A later turn is a batch of its own; a lone transaction is not prepared (admission decodes it).
  await offer(5);
  t.same(prepared, [[1, 2, 3, 4]], 'a lone transaction skips preparation');
  await Promise.all([offer(6), offer(7)]);
  t.same(prepared, [[1, 2, 3, 4], [6, 7]], 'the next turn is its own batch');
});

t.test('a failed preparation leaves each transaction to its own admission', async (t) => {
  const batch = new AdmissionBatch(async () => {
    throw new Error('recovery pool gone');
  });
  const answers = await Promise.allSettled([
    batch.admit(raw(1), async () => 'one'),
    batch.admit(raw(2), async () => {
      throw new Error('nonce too low');
    }),
    batch.admit(raw(3), async () => 'three'),
  ]);
  t.same(answers.map((a) => a.status), ['fulfilled', 'rejected', 'fulfilled'], 'one refusal does not fail the others');
});
