/** CORS headers: which origin to echo, and the answer to a preflight. */

/** Decides `Access-Control-Allow-Origin` for configured origins. */
export class CorsPolicy {
  readonly #any: boolean;
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#any = origins.includes('*');
    this.#origins = new Set(origins);
  }

  /** True when every origin is allowed, so the headers are the same for every request. */
  get allowsAnyOrigin(): boolean {
    return this.#any;
  }

  /** The allow-origin value for a request's `Origin`, or undefined when it is not allowed. */
  allowOrigin(origin: string): string | undefined {
    if (this.#any) return '*';
    return origin !== '' && this.#origins.has(origin) ? origin : undefined;
  }

  /** Headers (flat name/value list) answering a preflight for a path that serves `allow`. */
  preflightHeaders(origin: string, allow: string, requestedHeaders: string): string[] {
    const allowOrigin = this.allowOrigin(origin);
    if (allowOrigin === undefined) return [];
    const headers = [
      'Access-Control-Allow-Origin', allowOrigin,
      'Access-Control-Allow-Methods', allow,
      'Access-Control-Allow-Headers', requestedHeaders === '' ? 'Content-Type' : requestedHeaders,
      'Access-Control-Max-Age', '600',
    ];
    if (!this.#any) headers.push('Vary', 'Origin');
    return headers;
  }
}
