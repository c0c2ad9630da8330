/**
 * Hands the C heap's free pages back to the system now and then. glibc returns memory freed
 * at the top of its main heap, but keeps what is freed anywhere else in its arenas: after a
 * burst (a large batch, a snapshot, a long trace, a metrics scrape of a big heap) the process
 * stays at its peak although malloc holds the memory free. `malloc_trim` releases those pages
 * without moving anything; it runs on the libuv pool, never on the thread that produces blocks.
 */
import { trimMalloc } from '../store/index.js';

/** How often the node trims its C heap, ms. A trim walks the arenas' free chunks: a few ms. */
export const NATIVE_HEAP_TRIM_MS = 30_000;

/** A periodic trim of the C heap; stop() ends it and waits for a trim in progress. */
export class NativeHeapTrimmer {
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> = Promise.resolve();

  /** Trims every `intervalMs`; `onTrim` gets how far each trim lowered the resident size, bytes. */
  constructor(intervalMs: number, onTrim: (releasedBytes: number) => void) {
    this.#timer = setInterval(() => {
      // One trim at a time: a slow trim makes the next tick wait rather than pile up.
      this.#running = this.#running.then(() => trimMalloc().then(onTrim, () => undefined));
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops trimming; resolves once no trim runs. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
