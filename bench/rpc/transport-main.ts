/**
 * `node --import tsx bench/rpc/transport-main.ts [--connections 64] [--seconds 5] [--runs 3] [--out file.json] [--json]`
 *
 * Transport throughput: a trivial JSON-RPC method (`eth_chainId`) served by the uWebSockets.js
 * transport and by the node:http + ws fallback, each in its own server process, driven by the
 * raw-socket load generator in this process at N keep-alive connections. The two transports run
 * alternately and the median run is reported. Each run waits for other processes to use under
 * 5% of the machine and is run again (up to 4 times) if they used more during it. Client and
 * server share the machine's cores, so these are co-located figures; the uWS/node ratio is what
 * compares.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rate, table } from '../report.js';
import { cpuSnapshot, foreignCpuPercent, waitForQuietMachine } from './cpu.js';
import { runLoad, type LoadResult } from './load.js';

type Kind = 'uws' | 'node';

/** One measured run and the foreign CPU it saw. */
interface Run extends LoadResult {
  foreignCpuPercent: number;
}

/** Runs with more foreign CPU than this are thrown away and run again. */
const MAX_FOREIGN_PERCENT = 5;
/** Attempts per run before a disturbed run is kept (and flagged). */
const MAX_ATTEMPTS = 4;

const BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'transport-server.ts');

/** Starts a server process and resolves with its port once it prints it. */
function startServer(kind: Kind): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${kind} server exited with code ${code} before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /port (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function measure(kind: Kind, connections: number, seconds: number): Promise<Run> {
  const { child, port } = await startServer(kind);
  try {
    const pids = [child.pid!];
    await waitForQuietMachine(MAX_FOREIGN_PERCENT, 120_000, pids);
    const before = cpuSnapshot(pids);
    const result = await runLoad({ port, body: BODY, connections, durationMs: seconds * 1000, warmupMs: 1000 });
    return { ...result, foreignCpuPercent: foreignCpuPercent(before, cpuSnapshot(pids)) };
  } finally {
    await stopServer(child);
  }
}

/** Measures until a run sees little foreign CPU, or the attempts run out. */
async function measureGated(kind: Kind, connections: number, seconds: number, log: (msg: string) => void): Promise<Run> {
  let run = await measure(kind, connections, seconds);
  for (let attempt = 2; attempt <= MAX_ATTEMPTS && run.foreignCpuPercent >= MAX_FOREIGN_PERCENT; attempt++) {
    log(`  ${kind}: discarded a run with ${run.foreignCpuPercent.toFixed(1)}% foreign CPU (${rate(run.requestsPerSec)} req/s); again`);
    run = await measure(kind, connections, seconds);
  }
  return run;
}

function median<T extends LoadResult>(results: T[]): T {
  return [...results].sort((a, b) => a.requestsPerSec - b.requestsPerSec)[Math.floor(results.length / 2)]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '64' },
      seconds: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const runs = Number(values.runs);
  const log = (msg: string) => process.stderr.write(`${msg}\n`);
  const results: Record<Kind, Run[]> = { uws: [], node: [] };
  for (let run = 1; run <= runs; run++) {
    for (const kind of ['uws', 'node'] as const) {
      const result = await measureGated(kind, connections, seconds, log);
      results[kind].push(result);
      log(
        `run ${run}/${runs} ${kind}: ${rate(result.requestsPerSec)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ` +
          `p99 ${result.p99Ms.toFixed(2)} ms, ${result.errors} errors, foreign CPU ${result.foreignCpuPercent.toFixed(1)}%`,
      );
    }
  }
  const uws = median(results.uws);
  const node = median(results.node);
  const runsOf = (kind: Kind) => results[kind].map((r) => rate(r.requestsPerSec)).join(', ');
  const text = table([
    ['transport', 'req/s (median)', 'p50 ms', 'p99 ms', 'errors', 'foreign CPU', 'runs (req/s)'],
    ['uWebSockets.js', rate(uws.requestsPerSec), uws.p50Ms.toFixed(2), uws.p99Ms.toFixed(2), String(uws.errors), `${uws.foreignCpuPercent.toFixed(1)}%`, runsOf('uws')],
    ['node:http', rate(node.requestsPerSec), node.p50Ms.toFixed(2), node.p99Ms.toFixed(2), String(node.errors), `${node.foreignCpuPercent.toFixed(1)}%`, runsOf('node')],
    ['uWS / node:http', `${(uws.requestsPerSec / node.requestsPerSec).toFixed(2)}×`, '', '', '', '', ''],
  ]);
  const output = {
    method: 'eth_chainId',
    connections,
    seconds,
    runs,
    uwsRps: Math.round(uws.requestsPerSec),
    nodeHttpRps: Math.round(node.requestsPerSec),
    uwsOverNodeHttp: uws.requestsPerSec / node.requestsPerSec,
    uwsP50Ms: uws.p50Ms,
    uwsP99Ms: uws.p99Ms,
    nodeHttpP50Ms: node.p50Ms,
    nodeHttpP99Ms: node.p99Ms,
    errors: uws.errors + node.errors,
    maxForeignCpuPercent: Math.max(...[...results.uws, ...results.node].map((r) => r.foreignCpuPercent)),
    colocated: 'load generator and server share the machine cores',
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(output, null, 2)}\n`);
  if (values.json) {
    log(text);
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } else {
    process.stdout.write(`${text}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench rpc transport failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
