/**
 * The cap on traces running at once. A trace over the cap is refused at once rather than
 * queued: a queue of traces each allowed seconds of CPU would hold clients for minutes, while
 * a quick refusal lets them retry or go elsewhere.
 */
import { TraceBusyError } from '../service-errors.js';

/** Admits at most `max` traces at a time. */
export class TraceGate {
  #running = 0;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`the trace cap must be an integer >= 1, got ${max}`);
  }

  /** Traces running now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `trace` if a slot is free; otherwise throws TraceBusyError naming the cap. */
  async run<T>(trace: () => Promise<T>): Promise<T> {
    if (this.#running >= this.max) throw new TraceBusyError(this.#running, this.max);
    this.#running++;
    try {
      return await trace();
    } finally {
      this.#running--;
    }
  }
}
