/**
 * The sender-recovery ceiling of this machine: the same pre-signed transactions split over
 * `threads` worker threads, each recovering its share's senders at the same time; the rate is
 * all transactions over the wall time from the go signal to the last thread done.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RecoverWorkerData } from './recover-worker.js';

/** Recovered senders per second over `threads` threads. */
export async function recoverCeiling(raws: readonly Uint8Array[], chainId: number, threads: number): Promise<number> {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`./recover-worker${ext}`, import.meta.url);
  const share = Math.ceil(raws.length / threads);
  const workers = Array.from({ length: threads }, (_, i) => {
    const data: RecoverWorkerData = { raws: raws.slice(i * share, (i + 1) * share), chainId };
    // From source (tsx) the worker is a .ts file and needs the same loader.
    return new Worker(url, { workerData: data, execArgv: ext === '.ts' ? ['--import', 'tsx'] : [] });
  });
  try {
    const message = (w: Worker): Promise<Record<string, number | boolean>> =>
      new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    await Promise.all(workers.map(message));
    const done = workers.map(message);
    const started = performance.now();
    for (const w of workers) w.postMessage('go');
    const results = await Promise.all(done);
    const seconds = (performance.now() - started) / 1000;
    const recovered = results.reduce((n, r) => n + Number(r.recovered), 0);
    if (recovered !== raws.length) throw new Error(`recovered ${recovered} of ${raws.length} senders`);
    return recovered / seconds;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
