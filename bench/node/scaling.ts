/**
 * Scaling with execution workers: the node restarted with `[evm] execution-workers` = 1, 2
 * and 4 in turn, and at each count `eth_call` on distinct holders (the call pool) and
 * `debug_traceTransaction` with the callTracer over Token transfers (the trace pool, which
 * has the same number of workers). The per-worker figure divides by the workers that can
 * run at once on this machine (min(workers, cores)): it is what each added core would add on
 * a larger machine while nothing else limits.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DevAccount } from '../../src/chain/genesis-file.js';
import type { LoadResult } from '../rpc/load.js';
import { setExecutionWorkers, startNode, type NodeHome, type RunningProcess } from './node-process.js';
import { runReads } from './reads.js';
import { RpcClient } from './rpc-client.js';
import { hex, signEip1559 } from './sign.js';

/** The worker counts measured. */
export const WORKER_COUNTS = [1, 2, 4] as const;
/** Token transfers the callTracer figure traces (cycled), fewer than a sender may have pending (max-txs-per-sender, 80). */
const TRACED_TRANSFERS = 64;
/** Traces in flight: at most `max-concurrent-traces` (8 by default) run at once. */
const TRACE_CONNECTIONS = 8;
const INCLUSION_TIMEOUT_MS = 120_000;

/** A figure per worker count, keyed by the count ("1", "2", "4"). */
export type ByWorkers = Record<string, number>;

/** What the scaling runs measured. */
export interface ScalingRun {
  cores: number;
  callDistinctRps: ByWorkers;
  callDistinctP99Ms: ByWorkers;
  callDistinctPerWorkerRps: ByWorkers;
  callTracerTxPerSec: ByWorkers;
  callTracerPerWorkerTxPerSec: ByWorkers;
  errors: number;
  runs: Array<{ workers: number; call: LoadResult; callTracer: LoadResult }>;
}

/** Calldata of the Token's `transfer(to, amount)`. */
function transferData(to: string, amount: bigint): Uint8Array {
  return Buffer.from(`a9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`, 'hex');
}

/**
 * Sends TRACED_TRANSFERS Token transfers from `deployer` (nonces from `firstNonce`) to
 * distinct addresses and waits for all of them; returns their hashes.
 */
export async function submitTokenTransfers(port: number, deployer: DevAccount, token: string, firstNonce: bigint, chainId: number): Promise<string[]> {
  const key = Buffer.from(deployer.privateKey.slice(2), 'hex');
  const to = Buffer.from(token.slice(2), 'hex');
  const client = new RpcClient(port, 8);
  try {
    const raws = Array.from({ length: TRACED_TRANSFERS }, (_, i) =>
      hex(signEip1559(
        {
          chainId: BigInt(chainId),
          nonce: firstNonce + BigInt(i),
          maxPriorityFeePerGas: 1_000_000_000n,
          maxFeePerGas: 100_000_000_000n,
          gasLimit: 100_000n,
          to,
          value: 0n,
          data: transferData(`0x${(0xc0000000 + i).toString(16).padStart(40, '0')}`, BigInt(i + 1)),
        },
        key,
      )),
    );
    const hashes: string[] = [];
    for (const raw of raws) hashes.push(await client.call<string>('eth_sendRawTransaction', [raw]));
    const deadline = performance.now() + INCLUSION_TIMEOUT_MS;
    for (;;) {
      const receipt = await client.call<{ status: string } | null>('eth_getTransactionReceipt', [hashes[hashes.length - 1]]);
      if (receipt) {
        if (receipt.status !== '0x1') throw new Error('the last traced Token transfer reverted');
        return hashes;
      }
      if (performance.now() > deadline) throw new Error(`Token transfers not mined after ${INCLUSION_TIMEOUT_MS} ms`);
      await sleep(100);
    }
  } finally {
    client.close();
  }
}

/** debug_traceTransaction bodies with the callTracer, one per hash. */
export function callTracerBodies(hashes: readonly string[]): string[] {
  return hashes.map((hash) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] }));
}

/** The options of one scaling measurement. */
export interface ScalingOptions {
  home: NodeHome;
  nodeArgs: readonly string[];
  callBodies: readonly string[];
  traceBodies: readonly string[];
  connections: number;
  seconds: number;
  /** Waits for a quiet machine and meters the run (the caller's gate). */
  gate: <T extends object>(pids: number[], work: () => Promise<T>) => Promise<T>;
  log: (msg: string) => void;
  /** Keeps the started node so a signal can stop it. */
  track: (node: RunningProcess) => void;
}

/**
 * Runs the eth_call and callTracer figures at each worker count on nodes restarted over
 * `home` (which must be stopped); leaves the home's worker setting at 0 (the default) after.
 */
export async function measureScaling(options: ScalingOptions): Promise<ScalingRun> {
  const cores = availableParallelism();
  const result: ScalingRun = {
    cores,
    callDistinctRps: {},
    callDistinctP99Ms: {},
    callDistinctPerWorkerRps: {},
    callTracerTxPerSec: {},
    callTracerPerWorkerTxPerSec: {},
    errors: 0,
    runs: [],
  };
  try {
    for (const workers of WORKER_COUNTS) {
      await setExecutionWorkers(options.home, workers);
      const node = await startNode(options.home, options.nodeArgs);
      options.track(node);
      try {
        const call = await options.gate([node.pid], () => runReads(node.port, options.callBodies, options.connections, options.seconds));
        const callTracer = await options.gate([node.pid], () => runReads(node.port, options.traceBodies, TRACE_CONNECTIONS, options.seconds));
        const key = String(workers);
        const running = Math.min(workers, cores);
        result.callDistinctRps[key] = call.requestsPerSec;
        result.callDistinctP99Ms[key] = call.p99Ms;
        result.callDistinctPerWorkerRps[key] = call.requestsPerSec / running;
        result.callTracerTxPerSec[key] = callTracer.requestsPerSec;
        result.callTracerPerWorkerTxPerSec[key] = callTracer.requestsPerSec / running;
        result.errors += call.errors + callTracer.errors;
        result.runs.push({ workers, call, callTracer });
        options.log(`${workers} execution worker(s): eth_call distinct ${call.requestsPerSec.toFixed(0)} req/s (p99 ${call.p99Ms.toFixed(2)} ms, ${call.errors} errors), callTracer ${callTracer.requestsPerSec.toFixed(0)} tx/s (${callTracer.errors} errors)`);
        for (const [figure, run] of [['eth_call', call], ['callTracer', callTracer]] as const) {
          if (run.firstError) options.log(`  first ${figure} error at ${workers} worker(s): ${run.firstError}`);
        }
      } finally {
        await node.stop();
      }
    }
  } finally {
    await setExecutionWorkers(options.home, 0);
  }
  return result;
}
