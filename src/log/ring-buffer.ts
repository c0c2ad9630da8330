/**
 * The recent log a crash report carries: at least the last 1,000 lines and at least the last
 * 15 minutes, whichever is more (the spec's crash-report rule). A hard cap bounds memory when
 * a node logs very fast; it is far above what either rule needs at normal rates.
 */

/** Lines always kept, however old. */
export const RING_MIN_LINES = 1000;
/** Age under which a line is always kept. */
export const RING_MIN_AGE_MS = 15 * 60_000;
/** Most lines ever held (a node logging over 200 lines a second for 15 minutes loses the oldest). */
export const RING_MAX_LINES = 200_000;

/** A ring of recent formatted log lines with their times. */
export class LogRing {
  #lines: string[] = [];
  #times: number[] = [];
  #start = 0;

  constructor(
    private readonly minLines = RING_MIN_LINES,
    private readonly minAgeMs = RING_MIN_AGE_MS,
    private readonly maxLines = RING_MAX_LINES,
  ) {}

  /** Adds a line logged at `timeMs`, dropping the lines neither rule still needs. */
  push(line: string, timeMs: number = Date.now()): void {
    this.#lines.push(line);
    this.#times.push(timeMs);
    const oldestKept = timeMs - this.minAgeMs;
    while (this.size > this.minLines && (this.size > this.maxLines || this.#times[this.#start]! < oldestKept)) this.#start++;
    // Compact now and then rather than shifting on every line.
    if (this.#start > 4096 && this.#start > this.#lines.length / 2) {
      this.#lines = this.#lines.slice(this.#start);
      this.#times = this.#times.slice(this.#start);
      this.#start = 0;
    }
  }

  /** Lines held. */
  get size(): number {
    return this.#lines.length - this.#start;
  }

  /** The lines held, oldest first, with the times of the first and last. */
  snapshot(): { lines: string[]; fromMs: number | undefined; toMs: number | undefined } {
    return { lines: this.#lines.slice(this.#start), fromMs: this.#times[this.#start], toMs: this.#times[this.#times.length - 1] };
  }
}
