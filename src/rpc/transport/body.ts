/** Request body accumulation with a byte limit, shared by both transports. */

/** Collects body chunks until the limit; the caller hands over chunks it owns. */
export class BodyCollector {
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds a chunk; returns false (and keeps nothing more) once the total passes the limit. */
  add(chunk: Buffer): boolean {
    this.#size += chunk.byteLength;
    if (this.#size > this.#limit) {
      this.#chunks.length = 0;
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  /** The body so far, decoded as UTF-8. */
  text(): string {
    if (this.#chunks.length === 1) return this.#chunks[0]!.toString('utf8');
    return Buffer.concat(this.#chunks, this.#size).toString('utf8');
  }
}

/** Parses a Content-Length header value; -1 when absent or not a non-negative integer. */
export function declaredLength(header: string): number {
  if (header === '') return -1;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : -1;
}
