/** A `/metrics` route serving what the node's metrics registry renders at each scrape. */
import type { HttpTransport } from '../transport/types.js';

/** One scrape: the Prometheus exposition text and its content type. */
export interface MetricsScrape {
  readonly body: string;
  readonly contentType: string;
}

/** Registers GET /metrics; `scrape` renders the registry per request. */
export function registerMetricsRoute(transport: HttpTransport, scrape: () => Promise<MetricsScrape>): void {
  transport.route('GET', '/metrics', async () => {
    const { body, contentType } = await scrape();
    return { status: 200, body, contentType };
  });
}
