/**
 * The execution-apis debug_trace* conformance suite (test/fixtures/conformance/
 * execution-apis-debug): the test chain imported with `stratad debug import-eth-chain`, a real
 * node started on it, every `.io` request sent over HTTP. A test passes when every response
 * equals the recorded one (JSON equality, error code and message included) or — `speconly` —
 * when it is a successful JSON-RPC answer whose result conforms to the specification's
 * opcode-tracer schema; for those the differences from geth's recorded body are reported as
 * well.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

import { startImportedNode } from './imported-node.js';
import { readIoTests, type IoTest } from './io-file.js';
import { jsonDifferences, summarizeDifferences } from './json-diff.js';
import { checkSchema, type Schema, type SchemaSet } from './schema-check.js';

/** The suite's files, copied from ethereum/execution-apis (see test/fixtures/conformance/SOURCES.md). */
export const SUITE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/conformance/execution-apis-debug');

/**
 * The base types the opcode-tracer schemas refer to, as execution-apis defines them in
 * src/schemas/base-types.yaml (that file is not part of the copied specification).
 */
const BASE_TYPES: Record<string, Schema> = {
  bytes: { type: 'string', pattern: '^0x[0-9a-f]*$' },
  bytes32: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
  hash32: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
  uint256: { type: 'string', pattern: '^0x([1-9a-f]+[0-9a-f]{0,31})|0$' },
};

/** The outcome of one `.io` test. */
export interface IoOutcome {
  name: string;
  speconly: boolean;
  passed: boolean;
  /** Why it failed (empty when it passed). */
  problems: string[];
  /** speconly only: differences from geth's recorded body, folded by path. */
  gethDifferences: string[];
}

/** The suite's result. */
export interface ExecutionApisReport {
  passed: number;
  failed: number;
  failures: string[];
  outcomes: IoOutcome[];
}

/** The specification's schemas by name, with the base types. */
export function loadSchemas(): SchemaSet {
  const opcode = parseYaml(readFileSync(join(SUITE_ROOT, 'spec', 'opcode-tracer.yaml'), 'utf8')) as Record<string, Schema>;
  return new Map(Object.entries({ ...BASE_TYPES, ...opcode }));
}

/** Result schemas of the trace methods, by method name. */
function loadResultSchemas(): Map<string, Schema> {
  const methods = parseYaml(readFileSync(join(SUITE_ROOT, 'spec', 'trace.yaml'), 'utf8')) as Array<{ name: string; result: { schema: Schema } }>;
  return new Map(methods.map((m) => [m.name, m.result.schema]));
}

/**
 * The struct logger's branch of a result schema: a request without a tracer must answer with
 * the opcode-tracer shape, so each anyOf keeps only the branches naming an Opcode* schema
 * (the named-tracer branch accepts any value and would make the check vacuous).
 */
function opcodeBranch(schema: Schema): Schema {
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'anyOf') {
      const branches = (value as Schema[]).filter((b) => typeof b.$ref === 'string' && b.$ref.includes('/Opcode'));
      out.anyOf = branches.length > 0 ? branches : value;
    } else if (keyword === 'items') out.items = opcodeBranch(value as Schema);
    else out[keyword] = value;
  }
  return out;
}

function namesTracer(request: { params?: unknown }): boolean {
  const params = Array.isArray(request.params) ? request.params : [];
  return params.some((p) => typeof p === 'object' && p !== null && typeof (p as { tracer?: unknown }).tracer === 'string' && (p as { tracer: string }).tracer !== '');
}

async function post(port: number, body: string): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparseable: text, status: response.status };
  }
}

function schemaProblems(request: { id?: unknown; method?: string; params?: unknown }, response: unknown, schemas: SchemaSet, results: Map<string, Schema>): string[] {
  const answer = response as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  if (typeof answer !== 'object' || answer === null) return ['the response is not a JSON object'];
  const problems: string[] = [];
  if (answer.jsonrpc !== '2.0') problems.push(`jsonrpc is ${JSON.stringify(answer.jsonrpc)}, not "2.0"`);
  if (JSON.stringify(answer.id) !== JSON.stringify(request.id)) problems.push(`id ${JSON.stringify(answer.id)} does not echo ${JSON.stringify(request.id)}`);
  if (answer.error !== undefined) return [...problems, `an error instead of a result: ${JSON.stringify(answer.error)}`];
  if (!('result' in answer)) return [...problems, 'no result'];
  const schema = results.get(request.method ?? '');
  if (!schema) return [...problems, `the specification defines no method ${request.method}`];
  return [...problems, ...checkSchema(answer.result, namesTracer(request) ? schema : opcodeBranch(schema), schemas, '$.result')];
}

async function runTest(test: IoTest, port: number, schemas: SchemaSet, results: Map<string, Schema>): Promise<IoOutcome> {
  const problems: string[] = [];
  const gethDifferences: string[] = [];
  for (const [i, exchange] of test.exchanges.entries()) {
    const label = test.exchanges.length > 1 ? `exchange ${i + 1}: ` : '';
    const request = JSON.parse(exchange.request) as { id?: unknown; method?: string; params?: unknown };
    const response = await post(port, exchange.request);
    const differences = jsonDifferences(response, exchange.expected);
    if (test.speconly) {
      problems.push(...schemaProblems(request, response, schemas, results).map((p) => label + p));
      gethDifferences.push(...summarizeDifferences(differences).map((d) => label + d));
    } else if (differences.length > 0) {
      problems.push(...summarizeDifferences(differences).map((d) => `${label}differs from the recorded response: ${d}`));
    }
  }
  return { name: test.name, speconly: test.speconly, passed: problems.length === 0, problems, gethDifferences };
}

/** Imports the suite's chain, starts a node, runs every `.io` test and stops the node. */
export async function runExecutionApisSuite(): Promise<ExecutionApisReport> {
  const tests = readIoTests(SUITE_ROOT);
  const schemas = loadSchemas();
  const results = loadResultSchemas();
  const node = await startImportedNode(join(SUITE_ROOT, 'genesis.json'), join(SUITE_ROOT, 'chain.rlp'));
  const outcomes: IoOutcome[] = [];
  try {
    for (const test of tests) outcomes.push(await runTest(test, node.http, schemas, results));
  } finally {
    await node.stop();
  }
  const failures = outcomes.filter((o) => !o.passed).map((o) => o.name);
  return { passed: outcomes.length - failures.length, failed: failures.length, failures, outcomes };
}
