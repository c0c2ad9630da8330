/**
 * The `.io` files of the execution-apis conformance tests (the hive `rpc-compat` format):
 * `//` comment lines (one containing `speconly` marks a schema-only test), `>>` requests and
 * `<<` expected responses, in pairs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One request and the response recorded for it. */
export interface IoExchange {
  /** The request line as sent (after `>> `). */
  request: string;
  /** The recorded response, parsed. */
  expected: unknown;
}

/** One `.io` test. */
export interface IoTest {
  /** Path relative to the suite root, e.g. `debug_traceTransaction/trace-unknown-tx.io`. */
  name: string;
  /** Only the response's conformance to the schema is checked. */
  speconly: boolean;
  comments: string[];
  exchanges: IoExchange[];
}

/** Parses one `.io` file's text. */
export function parseIoFile(name: string, text: string): IoTest {
  const comments: string[] = [];
  const exchanges: IoExchange[] = [];
  let pending: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    if (line.startsWith('//')) comments.push(line.slice(2).trim());
    else if (line.startsWith('>>')) {
      if (pending !== undefined) throw new Error(`${name}:${index + 1}: a request follows a request without its response`);
      pending = line.slice(2).trim();
    } else if (line.startsWith('<<')) {
      if (pending === undefined) throw new Error(`${name}:${index + 1}: a response without a request`);
      exchanges.push({ request: pending, expected: JSON.parse(line.slice(2).trim()) as unknown });
      pending = undefined;
    } else throw new Error(`${name}:${index + 1}: a line that is neither a comment, a request nor a response`);
  });
  if (pending !== undefined) throw new Error(`${name}: the last request has no response`);
  if (exchanges.length === 0) throw new Error(`${name}: no request/response pair`);
  return { name, speconly: comments.some((c) => c.includes('speconly')), comments, exchanges };
}

/** Every `.io` file under `root`, sorted by name. */
export function readIoTests(root: string): IoTest[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.io')) files.push(path);
    }
  };
  walk(root);
  return files.sort().map((path) => parseIoFile(relative(root, path), readFileSync(path, 'utf8')));
}
