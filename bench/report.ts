/** Table printing shared by the benchmarks. */

/** Formats a rate with thousands separators. */
export function rate(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Renders rows as an aligned text table; the first row is the header. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** Prints a benchmark's table, and with `json` its JSON object on stdout (the table then goes to stderr). */
export function emitReport(text: string, output: object, json: boolean): void {
  if (json) {
    process.stderr.write(`${text}\n`);
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } else {
    process.stdout.write(`${text}\n`);
  }
}
