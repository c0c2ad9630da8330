/**
 * Turns one suite's JSON into evaluated figures: Strata's value, the peer's, their ratio, the
 * goal spelled out, and whether it was met — from the figure table of ./figures.ts.
 */
import type { FigureSpec, Goal, LatencySpec, ScalingSpec, Threshold } from './figures.js';

/** A suite's `--json` object. */
export type SuiteJson = Record<string, unknown>;

/** The value at a dot-separated `path`, if it is a finite number. */
export function numberAt(json: SuiteJson, path: string): number | null {
  let here: unknown = json;
  for (const key of path.split('.')) {
    if (here === null || typeof here !== 'object') return null;
    here = (here as Record<string, unknown>)[key];
  }
  return typeof here === 'number' && Number.isFinite(here) ? here : null;
}

/** The value at a dot-separated `path`, whatever it is. */
function valueAt(json: SuiteJson, path: string): unknown {
  let here: unknown = json;
  for (const key of path.split('.')) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** Mean and spread of a figure over rounds, as bench:node reports them. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
  stddev: number;
  rounds: number;
}

/** The per-round statistics at `path`, if they are there. */
function spreadAt(json: SuiteJson, path: string): Spread | null {
  const s = valueAt(json, path);
  if (s === null || typeof s !== 'object') return null;
  const { mean, min, max, stddev, rounds } = s as Record<string, unknown>;
  if ([mean, min, max, stddev, rounds].every((v) => typeof v === 'number')) return s as Spread;
  return null;
}

/** One figure as measured, ready for a table row. */
export interface EvaluatedFigure {
  label: string;
  unit: string;
  strata: number | null;
  peerName: string | null;
  peer: number | null;
  /** Strata / peer. */
  ratio: number | null;
  /** The goal in words, or '' when the figure has none. */
  goal: string;
  /** null: no goal, or not measured. */
  met: boolean | null;
  lowerIsBetter: boolean;
  strataSpread: Spread | null;
  peerSpread: Spread | null;
}

/** Formats a number for a table: thousands separators for large values, 2–3 significant decimals for small. */
export function formatNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function thresholdValue(json: SuiteJson, t: Threshold): { value: number | null; text: string } {
  if (typeof t === 'number') return { value: t, text: t.toLocaleString('en-US', { maximumFractionDigits: 6 }) };
  const base = numberAt(json, t.field);
  const value = base === null ? null : base * (t.factor ?? 1);
  return { value, text: `${t.label}${value === null ? '' : ` (${formatNumber(value)})`}` };
}

function judge(goal: Goal, json: SuiteJson, unit: string, peerName: string | null, strata: number | null, ratio: number | null): { text: string; met: boolean | null } {
  switch (goal.kind) {
    case 'ratioAtLeast':
      return { text: `≥ ${goal.min}× ${peerName ?? 'peer'}`, met: ratio === null ? null : ratio >= goal.min };
    case 'atLeast': {
      const t = thresholdValue(json, goal.min);
      return { text: `≥ ${t.text} ${unit}`, met: strata === null || t.value === null ? null : strata >= t.value };
    }
    case 'atMost': {
      const t = thresholdValue(json, goal.max);
      return { text: `≤ ${t.text} ${unit}`, met: strata === null || t.value === null ? null : strata <= t.value };
    }
  }
}

/** Evaluates `spec` against one run's JSON. */
export function evaluateFigure(spec: FigureSpec, json: SuiteJson): EvaluatedFigure {
  const strata = numberAt(json, spec.strata);
  const peer = spec.peer ? numberAt(json, spec.peer.field) : null;
  const ratio = strata !== null && peer !== null && peer > 0 ? strata / peer : null;
  const peerName = spec.peer?.name ?? null;
  const verdict = spec.goal ? judge(spec.goal, json, spec.unit, peerName, strata, ratio) : { text: '', met: null };
  return {
    label: spec.label,
    unit: spec.unit,
    strata,
    peerName,
    peer,
    ratio,
    goal: verdict.text,
    met: verdict.met,
    lowerIsBetter: spec.lowerIsBetter ?? false,
    strataSpread: spec.spread ? spreadAt(json, spec.spread.strata) : null,
    peerSpread: spec.spread?.peer ? spreadAt(json, spec.spread.peer) : null,
  };
}

/** One latency point for the chart. */
export interface LatencyPoint {
  kind: string;
  side: string;
  percentile: 'p50' | 'p99' | 'max';
  ms: number;
}

/**
 * Whether the object holding the value at `path` is a phase in which every request failed
 * (`errors` ≥ `traces`): its latencies time errors, not work.
 */
function failedPhase(json: SuiteJson, path: string): boolean {
  const parent = valueAt(json, path.split('.').slice(0, -1).join('.'));
  if (parent === null || typeof parent !== 'object') return false;
  const { errors, traces } = parent as Record<string, unknown>;
  return typeof errors === 'number' && typeof traces === 'number' && errors >= traces;
}

/** The latency percentiles `specs` name that this run reported (none of a phase that only failed). */
export function latencyPoints(specs: readonly LatencySpec[], json: SuiteJson): LatencyPoint[] {
  const points: LatencyPoint[] = [];
  for (const spec of specs) {
    for (const series of spec.series) {
      for (const percentile of ['p50', 'p99', 'max'] as const) {
        const path = series[percentile];
        const ms = path === undefined || (path.includes('.') && failedPhase(json, path)) ? null : numberAt(json, path);
        if (ms !== null) points.push({ kind: spec.label, side: series.side, percentile, ms });
      }
    }
  }
  return points;
}

/** One point of a scaling curve. */
export interface ScalingPoint {
  figure: string;
  workers: number;
  value: number;
}

/**
 * The per-worker-count figures `specs` name that this run reported: each an array of
 * `{ workers, value }` or an object keyed by the worker count (`{ "1": …, "2": …, "4": … }`).
 */
export function scalingPoints(specs: readonly ScalingSpec[], json: SuiteJson): ScalingPoint[] {
  const points: ScalingPoint[] = [];
  for (const spec of specs) {
    const found = valueAt(json, spec.field);
    const series = found !== null && typeof found === 'object' && !Array.isArray(found)
      ? Object.entries(found as Record<string, unknown>).map(([workers, value]) => ({ workers: Number(workers), value }))
      : found;
    if (!Array.isArray(series)) continue;
    for (const entry of series as unknown[]) {
      if (entry === null || typeof entry !== 'object') continue;
      const { workers, value } = entry as Record<string, unknown>;
      if (typeof workers === 'number' && typeof value === 'number' && Number.isFinite(value)) {
        points.push({ figure: `${spec.label} (${spec.unit})`, workers, value });
      }
    }
  }
  return points;
}
