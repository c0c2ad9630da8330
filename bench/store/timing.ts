/** Small timing helpers shared by the storage benchmark's runners. */

/** A benchmark that found a wrong answer or could not run; the message says which. */
export class BenchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchError';
  }
}

/** Seconds elapsed since a `process.hrtime.bigint()` reading. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
