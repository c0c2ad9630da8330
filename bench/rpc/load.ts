/**
 * A closed-loop HTTP load generator for JSON-RPC: N keep-alive connections on raw sockets, one
 * request in flight on each, the request bytes built once. A response counts as an error
 * unless it has status 200 and no `"error"` in its body. It runs in the calling process, so on
 * a small machine it competes with the server for CPU; figures are co-located figures.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What to send and for how long. */
export interface LoadOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `/`. */
  path?: string;
  /** The request body, typically one JSON-RPC call. */
  body: string;
  /**
   * Distinct bodies to cycle through instead of `body` (each connection starts at its own
   * offset), for workloads that must not repeat one request.
   */
  bodies?: readonly string[];
  /** Concurrent keep-alive connections. */
  connections: number;
  /** Measured time. */
  durationMs: number;
  /** Unmeasured time before it, to warm up the JIT and the connections. Default 0. */
  warmupMs?: number;
}

/** What one run measured. */
export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Failed responses plus socket errors during the measured window. */
  errors: number;
  /** Successful responses in the measured window. */
  requests: number;
  /** The start of the first refusal's body ('' when none). */
  firstError: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const ERROR_MARKER = Buffer.from('"error"');

/** Builds the bytes of one keep-alive POST. */
export function requestBytes(host: string, port: number, path: string, body: string): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const head =
    `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${payload.byteLength}\r\nConnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** Tallies shared by all connections of a run. */
class Tally {
  readonly latenciesMs: number[] = [];
  errors = 0;
  /** The body of the first refused request (JSON-RPC error or non-200), or a socket failure. */
  firstError = '';
  measureFrom = Infinity;
  stopAt = Infinity;

  /** Records a finished request that was sent at `sentAt` and completed now. */
  record(sentAt: number, now: number, ok: boolean, detail?: () => string): void {
    if (sentAt < this.measureFrom || now > this.stopAt) return;
    if (ok) {
      this.latenciesMs.push(now - sentAt);
      return;
    }
    this.errors++;
    if (!this.firstError && detail) this.firstError = detail();
  }
}

/** Where a connection takes its next request from; undefined when there is none left. */
type RequestSource = () => Buffer | undefined;

/** One connection sending its requests back to back, one in flight. */
class LoadConnection {
  readonly #next: RequestSource;
  readonly #tally: Tally;
  readonly #host: string;
  readonly #port: number;
  readonly #finished: () => void;
  #socket!: Socket;
  #pending: Buffer | undefined;
  #sentAt = 0;
  #done = false;

  constructor(host: string, port: number, next: RequestSource, tally: Tally, finished: () => void) {
    this.#host = host;
    this.#port = port;
    this.#next = next;
    this.#tally = tally;
    this.#finished = finished;
    this.#open();
  }

  #open(): void {
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    this.#socket = socket;
    this.#pending = undefined;
    socket.on('connect', () => this.#send());
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => {
      // 'close' follows; the failure is counted there.
    });
    socket.on('close', () => {
      if (this.#done) return;
      const now = performance.now();
      this.#tally.record(this.#sentAt, now, false, () => 'the connection closed');
      if (now < this.#tally.stopAt) this.#open();
      else this.#finish();
    });
  }

  #send(): void {
    const request = performance.now() < this.#tally.stopAt ? this.#next() : undefined;
    if (request === undefined) {
      this.#finish();
      return;
    }
    this.#sentAt = performance.now();
    this.#socket.write(request);
  }

  #onData(chunk: Buffer): void {
    const data = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    const headerEnd = data.indexOf(HEADER_END);
    if (headerEnd < 0) {
      this.#pending = data;
      return;
    }
    const head = data.toString('latin1', 0, headerEnd).toLowerCase();
    const lengthAt = head.indexOf('\r\ncontent-length:');
    if (lengthAt < 0) {
      // Only Content-Length framing is expected from a JSON-RPC server; anything else is a failure.
      this.#tally.record(this.#sentAt, performance.now(), false, () => head.slice(0, 300));
      this.#socket.destroy();
      return;
    }
    const length = parseInt(head.slice(lengthAt + 17, head.indexOf('\r\n', lengthAt + 2) >>> 0), 10);
    const bodyStart = headerEnd + 4;
    if (data.byteLength < bodyStart + length) {
      this.#pending = data;
      return;
    }
    this.#pending = undefined;
    const ok = head.startsWith('http/1.1 200') && data.indexOf(ERROR_MARKER, bodyStart) < 0;
    // The refusal's text is read only for a refusal: no closure per answered request.
    this.#tally.record(this.#sentAt, performance.now(), ok, ok ? undefined : () => data.toString('utf8', bodyStart, Math.min(bodyStart + length, bodyStart + 300)));
    this.#send();
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#socket.destroy();
    this.#finished();
  }
}

/** The value at quantile q (0..1) of sorted values. */
function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Runs the load and resolves when every connection has stopped. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const host = options.host ?? '127.0.0.1';
  const requests = (options.bodies ?? [options.body]).map((body) => requestBytes(host, options.port, options.path ?? '/', body));
  const stride = Math.max(1, Math.floor(requests.length / options.connections));
  const tally = new Tally();
  const start = performance.now();
  tally.measureFrom = start + (options.warmupMs ?? 0);
  tally.stopAt = tally.measureFrom + options.durationMs;
  // Each connection cycles through the requests from its own offset.
  const cycling = (first: number): RequestSource => {
    let next = first % requests.length;
    return () => {
      const request = requests[next]!;
      next = (next + 1) % requests.length;
      return request;
    };
  };
  return connectAll(host, options.port, options.connections, (i) => cycling(i * stride), tally).then(() => {
    const sorted = Float64Array.from(tally.latenciesMs).sort();
    return {
      requestsPerSec: sorted.length / (options.durationMs / 1000),
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      errors: tally.errors,
      requests: sorted.length,
      firstError: tally.firstError,
    };
  });
}

/** What sending a list of requests once each measured. */
export interface SendEachResult {
  /** Seconds from the first request sent to the last answer. */
  seconds: number;
  /** Requests answered with status 200 and no JSON-RPC error. */
  ok: number;
  /** Requests refused, or lost with their connection. */
  errors: number;
  /** The start of the first refusal's body ('' when none). */
  firstError: string;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Sends every body once, in order, over `connections` keep-alive connections with one request
 * in flight on each, and resolves when all are answered (or `timeoutMs` has passed; what was
 * not answered by then is neither ok nor an error).
 */
export async function sendEach(options: { port: number; host?: string; path?: string; bodies: readonly string[]; connections: number; timeoutMs: number }): Promise<SendEachResult> {
  const host = options.host ?? '127.0.0.1';
  const requests = options.bodies.map((body) => requestBytes(host, options.port, options.path ?? '/', body));
  const tally = new Tally();
  let next = 0;
  const shared: RequestSource = () => requests[next++];
  const start = performance.now();
  tally.measureFrom = start;
  // Bounds a run against a server that stopped answering: connections stop drawing then.
  tally.stopAt = start + options.timeoutMs;
  await connectAll(host, options.port, Math.min(options.connections, Math.max(1, requests.length)), () => shared, tally);
  const seconds = (performance.now() - start) / 1000;
  const sorted = Float64Array.from(tally.latenciesMs).sort();
  return { seconds, ok: sorted.length, errors: tally.errors, firstError: tally.firstError, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
}

/** Opens `connections` connections, each drawing from `source(i)`, and resolves when all have stopped. */
function connectAll(host: string, port: number, connections: number, source: (i: number) => RequestSource, tally: Tally): Promise<void> {
  return new Promise((resolve) => {
    let running = connections;
    const finished = () => {
      if (--running === 0) resolve();
    };
    for (let i = 0; i < connections; i++) new LoadConnection(host, port, source(i), tally, finished);
  });
}
