/**
 * Per-thread CPU time from Linux's scheduler statistics: the calling thread's grows with work
 * it does and not with a worker's, a worker's is read under the thread id it reports, and a
 * thread that has ended reads as undefined.
 */
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { addThreadCpu, currentThreadId, threadCpu } from '../../src/node/thread-cpu.js';

/** Burns about `ms` of this thread's CPU. */
function spin(ms: number): void {
  const until = Date.now() + ms;
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1);
}

t.test('the calling thread', async (t) => {
  const tid = currentThreadId();
  t.equal(tid, process.pid, "the main thread's id is the process id");
  const before = threadCpu()!;
  spin(200);
  const after = threadCpu()!;
  // A loaded machine may run the loop for less than its 200 ms of wall time; a quarter of it shows.
  t.ok(after.runSeconds - before.runSeconds >= 0.05, `200 ms of work shows: ${(after.runSeconds - before.runSeconds).toFixed(3)} s`);
  t.ok(after.waitSeconds >= before.waitSeconds, 'the wait for a CPU only grows');
  t.ok(threadCpu(tid)!.runSeconds >= after.runSeconds, 'read by its id, the same thread: its time since');
  t.same(addThreadCpu({ runSeconds: 1, waitSeconds: 2 }, { runSeconds: 0.5, waitSeconds: 0.25 }), { runSeconds: 1.5, waitSeconds: 2.25 });
});

t.test('a worker thread, read from the main thread under the id it reports', async (t) => {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const { readlinkSync } = require('node:fs');
     parentPort.on('message', (ms) => {
       const until = Date.now() + ms; let x = 0; while (Date.now() < until) x += Math.sqrt(x + 1);
       parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));
     });`,
    { eval: true },
  );
  const answer = () => new Promise<number>((resolve) => worker.once('message', resolve));
  const main0 = threadCpu()!;
  worker.postMessage(300);
  const tid = await answer();
  t.not(tid, process.pid, 'the worker runs on a thread of its own');
  const cpu = threadCpu(tid)!;
  t.ok(cpu.runSeconds >= 0.075, `its 300 ms of work show under its id: ${cpu.runSeconds.toFixed(3)} s`);
  const mainGrew = threadCpu()!.runSeconds - main0.runSeconds;
  t.ok(mainGrew < cpu.runSeconds, `and not in the main thread's time, which grew ${mainGrew.toFixed(3)} s while it waited`);
  await worker.terminate();
  t.equal(threadCpu(tid), undefined, 'once the thread has ended its time cannot be read');
});
