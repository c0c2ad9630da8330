/**
 * Structural differences between two JSON values, for comparing a schema-only test's answer
 * with the body geth recorded: each difference with its path, and a summary that folds array
 * indices (`structLogs[*].refund`) so one systematic difference reads as one line.
 */

/** One difference: a value that differs, or a key or element only one side has. */
export interface JsonDifference {
  path: string;
  kind: 'value' | 'only-ours' | 'only-expected' | 'type';
  ours?: unknown;
  expected?: unknown;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Every difference between `ours` and `expected`. */
export function jsonDifferences(ours: unknown, expected: unknown, path = '$'): JsonDifference[] {
  const a = kindOf(ours);
  const b = kindOf(expected);
  if (a !== b) return [{ path, kind: 'type', ours, expected }];
  if (a === 'array') {
    const x = ours as unknown[];
    const y = expected as unknown[];
    const out: JsonDifference[] = [];
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      if (i >= x.length) out.push({ path: `${path}[${i}]`, kind: 'only-expected', expected: y[i] });
      else if (i >= y.length) out.push({ path: `${path}[${i}]`, kind: 'only-ours', ours: x[i] });
      else out.push(...jsonDifferences(x[i], y[i], `${path}[${i}]`));
    }
    return out;
  }
  if (a === 'object') {
    const x = ours as Record<string, unknown>;
    const y = expected as Record<string, unknown>;
    const out: JsonDifference[] = [];
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (!(key in y)) out.push({ path: `${path}.${key}`, kind: 'only-ours', ours: x[key] });
      else if (!(key in x)) out.push({ path: `${path}.${key}`, kind: 'only-expected', expected: y[key] });
      else out.push(...jsonDifferences(x[key], y[key], `${path}.${key}`));
    }
    return out;
  }
  return ours === expected ? [] : [{ path, kind: 'value', ours, expected }];
}

/** True when the two values are equal as JSON (object key order ignored). */
export function jsonEqual(ours: unknown, expected: unknown): boolean {
  return jsonDifferences(ours, expected).length === 0;
}

/** Differences folded by path with array indices replaced by `*`: "path kind ×count (e.g. ours → expected)". */
export function summarizeDifferences(differences: readonly JsonDifference[]): string[] {
  const groups = new Map<string, { count: number; sample: JsonDifference }>();
  for (const d of differences) {
    const key = `${d.path.replace(/\[\d+\]/g, '[*]')} ${d.kind}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { count: 1, sample: d });
  }
  const show = (v: unknown): string => {
    const text = JSON.stringify(v);
    return text === undefined ? 'absent' : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  return [...groups].map(([key, { count, sample }]) => `${key} ×${count} (e.g. ${sample.path}: ours ${show(sample.ours)}, geth ${show(sample.expected)})`);
}
