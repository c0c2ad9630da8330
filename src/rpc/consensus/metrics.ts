/** A `/metrics` route serving Prometheus text exposition format. */
import type { HttpTransport } from '../transport/types.js';

/** One sample: a metric name, its labels and value. */
export interface MetricSample {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly value: number | bigint;
  readonly labels?: Readonly<Record<string, string>>;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** Renders samples as Prometheus text: HELP and TYPE once per name, then each sample. */
export function renderPrometheus(samples: readonly MetricSample[]): string {
  const lines: string[] = [];
  const described = new Set<string>();
  for (const sample of samples) {
    if (!described.has(sample.name)) {
      described.add(sample.name);
      lines.push(`# HELP ${sample.name} ${sample.help}`, `# TYPE ${sample.name} ${sample.type}`);
    }
    const labels = Object.entries(sample.labels ?? {});
    const labelText = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
    lines.push(`${sample.name}${labelText} ${sample.value.toString()}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Registers GET /metrics; `collect` is called per scrape. */
export function registerMetricsRoute(transport: HttpTransport, collect: () => readonly MetricSample[]): void {
  transport.route('GET', '/metrics', () => ({
    status: 200,
    body: renderPrometheus(collect()),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  }));
}
