/**
 * The node trims its C heap now and then (node/native-heap-trim.ts): each trim reports how far
 * the resident size fell, pages held free after a burst of native allocations leave, and
 * stop() ends the trims.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';

import { NativeHeapTrimmer } from '../../src/node/native-heap-trim.js';
import { mallocUsage, trimMalloc } from '../../src/store/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

t.test('a trim hands back pages a burst of native allocations left free', async (t) => {
  // Buffers made with allocUnsafeSlow come from malloc; the small ones in between stay, so
  // the freed ones sit inside the heap where free() alone keeps them.
  let burst: Buffer[] = [];
  const kept: Buffer[] = [];
  for (let i = 0; i < 512; i++) {
    burst.push(Buffer.allocUnsafeSlow(64 * 1024).fill(1));
    kept.push(Buffer.allocUnsafeSlow(64));
  }
  const heldBefore = mallocUsage().freeBytes;
  burst = [];
  // The Buffers' memory goes back to malloc once V8 collects them.
  for (let i = 0; i < 20 && mallocUsage().freeBytes < heldBefore + 16 * 1024 * 1024; i++) {
    gc();
    await sleep(50);
  }
  t.ok(mallocUsage().freeBytes >= heldBefore + 16 * 1024 * 1024, 'the burst is freed but still held by malloc');
  t.ok((await trimMalloc()) >= 16 * 1024 * 1024, 'the trim lowered the resident size by most of it');
  t.equal(kept.length, 512, 'the small blocks in between stay allocated throughout');
});

t.test('the trimmer reports each trim and stops', async (t) => {
  const released: number[] = [];
  const trimmer = new NativeHeapTrimmer(20, (bytes) => released.push(bytes));
  while (released.length < 3) await sleep(10);
  await trimmer.stop();
  const seen = released.length;
  t.ok(released.every((b) => Number.isInteger(b) && b >= 0), 'each trim reports the bytes it released');
  await sleep(100);
  t.equal(released.length, seen, 'no trim after stop()');
});
