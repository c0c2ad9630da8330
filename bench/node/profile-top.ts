/**
 * `node dist/bench/node/profile-top.js <file.cpuprofile> [--top N]`: the functions that took
 * the most self time in a V8 CPU profile (as written by `node --cpu-prof`, e.g. from
 * `bench:node -- --cpu-prof-dir DIR`), with their share of the sampled time, and the same by
 * source file — enough to see where a node process spends its time without a GUI.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { table } from '../report.js';

/** The parts of a `.cpuprofile` this summary reads. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time per function and per file, in ms, largest first. */
export function selfTimes(profile: CpuProfile): { total: number; functions: Array<[string, number]>; files: Array<[string, number]> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0) / 1000));
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame;
    const file = frame.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, 'node_modules/').replace(/.*\/dist\//, 'dist/');
    const name = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + ms);
    files.set(file || frame.functionName, (files.get(file || frame.functionName) ?? 0) + ms);
    total += ms;
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, functions: sorted(functions), files: sorted(files) };
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  const top = Number(values.top);
  for (const path of positionals) {
    const { total, functions, files } = selfTimes(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile);
    const rows = (entries: Array<[string, number]>, label: string) =>
      table([[label, 'self ms', 'share'], ...entries.slice(0, top).map(([name, ms]) => [name, ms.toFixed(0), `${((ms / total) * 100).toFixed(1)}%`])]);
    process.stdout.write(`${path}: ${(total / 1000).toFixed(1)} s sampled\n\n${rows(functions, 'function')}\n\n${rows(files, 'file')}\n`);
  }
}

main();
