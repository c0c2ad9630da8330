/**
 * The report's charts: vega-lite specifications compiled to vega and rendered to SVG in Node
 * (the `none` renderer needs no canvas). One chart per kind and suite: throughput of each
 * figure against its peer, latency percentiles, and throughput against the number of workers.
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { EvaluatedFigure, LatencyPoint, ScalingPoint } from './evaluate.js';

/** A rendered chart: its file name in the results folder, title and SVG text. */
export interface Chart {
  file: string;
  title: string;
  svg: string;
}

/** Renders a vega-lite specification to SVG. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Strata against the peer per figure (higher is better only), grouped bars on a log scale so
 * figures of different sizes share one chart; the ratio is in the tooltip and the table.
 */
export function throughputSpec(title: string, figures: readonly EvaluatedFigure[]): TopLevelSpec | null {
  const values = figures
    .filter((f) => !f.lowerIsBetter && f.strata !== null && f.strata > 0 && f.peer !== null && f.peer > 0)
    .flatMap((f) => [
      { figure: `${f.label} (${f.unit})`, side: 'Strata', value: f.strata },
      { figure: `${f.label} (${f.unit})`, side: f.peerName ?? 'peer', value: f.peer },
    ]);
  if (values.length === 0) return null;
  return {
    title,
    data: { values },
    width: 480,
    mark: { type: 'bar', tooltip: true },
    encoding: {
      y: { field: 'figure', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'side', type: 'nominal' },
      x: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: 'per second (log scale)' },
      color: { field: 'side', type: 'nominal', title: null },
    },
  } as TopLevelSpec;
}

/** Latency percentiles per request kind and side. */
export function latencySpec(title: string, points: readonly LatencyPoint[]): TopLevelSpec | null {
  if (points.length === 0) return null;
  return {
    title,
    data: { values: points.map((p) => ({ ...p, series: `${p.side} ${p.percentile}` })) },
    mark: { type: 'bar', tooltip: true },
    width: 480,
    encoding: {
      y: { field: 'kind', type: 'nominal', title: null, sort: null },
      yOffset: { field: 'series', type: 'nominal' },
      x: { field: 'ms', type: 'quantitative', title: 'ms' },
      color: { field: 'series', type: 'nominal', title: null },
    },
  } as TopLevelSpec;
}

/** Throughput against workers, one line per figure. */
export function scalingSpec(title: string, points: readonly ScalingPoint[]): TopLevelSpec | null {
  if (points.length === 0) return null;
  return {
    title,
    data: { values: points },
    width: 480,
    height: 240,
    mark: { type: 'line', point: true, tooltip: true },
    encoding: {
      x: { field: 'workers', type: 'quantitative', title: 'workers', axis: { tickMinStep: 1 } },
      y: { field: 'value', type: 'quantitative', title: 'per second' },
      color: { field: 'figure', type: 'nominal', title: null },
    },
  } as TopLevelSpec;
}
