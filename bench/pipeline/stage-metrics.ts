/**
 * The node's stage histograms read from its `/metrics`: two scrapes, and per stage the
 * observations, the time and the bucket counts between them, from which the mean and (bucket
 * interpolated, as Prometheus' histogram_quantile does) the p50 and p99 follow.
 */
import { scrapeMetrics } from '../metrics-text.js';

/** One histogram's samples for one `stage` label. */
interface StageHistogram {
  count: number;
  sum: number;
  /** Upper bound (seconds; Infinity for +Inf) → cumulative count. */
  buckets: Map<number, number>;
}

/** The stage histograms of one scrape, by metric name then stage. */
export type StageScrape = Map<string, Map<string, StageHistogram>>;

/** A histogram's sample names: `<name>_bucket`, `<name>_sum`, `<name>_count`. */
const HISTOGRAM_PART = /^(\w+?)(_bucket|_sum|_count)$/;

/** Scrapes `/metrics` on `port` and keeps the histograms named in `names`. */
export async function scrapeStages(port: number, names: readonly string[]): Promise<StageScrape> {
  const out: StageScrape = new Map(names.map((n) => [n, new Map()]));
  for (const { name, labels, value } of await scrapeMetrics(port)) {
    const m = HISTOGRAM_PART.exec(name);
    const stages = m ? out.get(m[1]!) : undefined;
    if (!m || !stages || labels.stage === undefined) continue;
    const h = stages.get(labels.stage) ?? { count: 0, sum: 0, buckets: new Map<number, number>() };
    stages.set(labels.stage, h);
    if (m[2] === '_count') h.count = value;
    else if (m[2] === '_sum') h.sum = value;
    else h.buckets.set(labels.le === '+Inf' ? Infinity : Number(labels.le), value);
  }
  return out;
}

/** One stage between two scrapes. */
export interface StageDelta {
  count: number;
  seconds: number;
  /** Milliseconds per observation. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

/** The `q` quantile (0…1) of cumulative buckets, interpolated linearly inside the bucket. */
function quantile(buckets: Array<[number, number]>, q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of buckets) {
    if (cumulative >= rank) {
      // Above the last finite bound nothing better than that bound is known.
      if (le === Infinity) return lower;
      return lower + (le - lower) * ((rank - below) / Math.max(1, cumulative - below));
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

/** Per stage of histogram `name`: what happened between `before` and `after`. */
export function stageDeltas(before: StageScrape, after: StageScrape, name: string): Map<string, StageDelta> {
  const out = new Map<string, StageDelta>();
  for (const [stage, a] of after.get(name) ?? []) {
    const b = before.get(name)?.get(stage);
    const count = a.count - (b?.count ?? 0);
    const seconds = a.sum - (b?.sum ?? 0);
    const buckets = [...a.buckets].sort((x, y) => x[0] - y[0]).map(([le, c]): [number, number] => [le, c - (b?.buckets.get(le) ?? 0)]);
    out.set(stage, {
      count,
      seconds,
      meanMs: count > 0 ? (seconds * 1000) / count : Number.NaN,
      p50Ms: quantile(buckets, 0.5) * 1000,
      p99Ms: quantile(buckets, 0.99) * 1000,
    });
  }
  return out;
}
