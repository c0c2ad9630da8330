/** The node's `/metrics` (Prometheus text exposition) read into samples, for the benchmarks that watch it. */

/** One sample line: metric name, labels, value. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^(\w+)(?:\{([^}]*)\})? (\S+)$/;
const LABEL = /(\w+)="([^"]*)"/g;

/** The samples of an exposition text; comment lines (`# HELP`, `# TYPE`) and blank lines are skipped. */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (m) samples.push({ name: m[1]!, labels: Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!])), value: Number(m[3]) });
  }
  return samples;
}

/** Scrapes `/metrics` of the node whose metrics listener is on 127.0.0.1:`port`. */
export async function scrapeMetrics(port: number): Promise<MetricSample[]> {
  return parseMetrics(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
}
