/**
 * An execution worker: a thread of the node process with its own VMs that runs eth_call,
 * eth_estimateGas and debug_trace* on the node's SS and block store (borrowed through share
 * tokens, read directly), so that no request, however long, holds the thread that produces
 * blocks. A call's EVM stops at the deadline its task carries, so the worker serves on; the
 * node terminates one that is still busy well past it. Traces keep their own per-transaction
 * deadlines here.
 */
import { setPriority } from 'node:os';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';

import { ReplicaApp } from '../../app/index.js';
import { BlockStore } from '../../chain/block-store.js';
import { createAccessList } from '../../evm/access-list.js';
import { estimateGas, ethCall } from '../../evm/call.js';
import { simulate } from '../../evm/simulate.js';
import { CodeCache } from '../../evm/code-cache.js';
import { VmPool } from '../../evm/vm-pool.js';
import { ChainProvider } from '../../provider/index.js';
import type { BlockTraceEntry, DebugBackend } from '../../rpc/debug/index.js';
import { SharedStateReader } from '../../store/index.js';
import type { JsonValue } from '../../trace/index.js';
import { replayedTransactions } from '../../trace/replay/index.js';
import { TraceService } from '../../trace/service/index.js';
import { RawJson, encodeJson, type AsciiJsonParts } from '../../util/raw-json.js';
import { NodeDebugBackend } from '../debug-backend.js';
import { currentThreadId } from '../thread-cpu.js';
import { HeightViews } from './height-views.js';
import { HEAP_REPORT_MS, WORKER_READY, compactBytes, failureOf, type HeapReport, type Task, type TaskReply, type TraceCall, type WorkerSetup } from './protocol.js';

/** Niceness of a worker thread: block production and the consensus RPC win the CPU from it. */
const WORKER_NICENESS = 10;

const threadId = currentThreadId();

/**
 * Lowers this thread's scheduling priority. On Linux a thread is scheduled as a task of its
 * own, and setpriority on its task id changes that thread alone; elsewhere this does nothing.
 */
function lowerPriority(): void {
  try {
    if (threadId !== undefined) setPriority(threadId, WORKER_NICENESS);
  } catch {
    // Not permitted: the worker runs at the node's priority.
  }
}

lowerPriority();
const setup = workerData as WorkerSetup;
const port = parentPort;
if (port === null) throw new Error('the execution worker runs only as a worker thread of stratad');

const state = SharedStateReader.attach(setup.state);
const store = BlockStore.attach(setup.blocks);
const app = new ReplicaApp(setup.genesis, state, setup.gasCap, (height) => store.hashAt(height));
const vms = new VmPool(app.common, new CodeCache(), (height) => store.hashAt(height));
const views = new HeightViews((height) => app.storedView(height));
let debug: DebugBackend | undefined;

/** The debug_ backend over this worker's replica, made on the first trace. */
function debugBackend(): DebugBackend {
  if (debug === undefined) {
    const chain = new ChainProvider(app, store);
    debug = new NodeDebugBackend(new TraceService(app, chain, setup.traceLimits), chain, store);
  }
  return debug;
}

/**
 * A trace result as its JSON text, not a tree of objects to clone: one string, or the struct
 * logger's text bytes as they are (their buffer is transferred, see transfersOf).
 */
function tracedJson(result: JsonValue | undefined): string | AsciiJsonParts | undefined {
  if (result instanceof RawJson && result.parts !== undefined) return result.parts;
  return result === undefined ? undefined : encodeJson(result);
}

/** Block traces with compact transaction hashes and each result as its JSON text. */
function compactEntries(entries: BlockTraceEntry[] | undefined): Array<{ txHash: Uint8Array; result: string | AsciiJsonParts | undefined }> | undefined {
  return entries?.map((entry) => ({ txHash: compactBytes(entry.txHash), result: tracedJson(entry.result) }));
}

/** The buffers of the text bytes in a trace reply, moved to the main thread rather than copied. */
function transfersOf(reply: TaskReply): ArrayBuffer[] {
  if (!reply.ok || reply.result === null || typeof reply.result !== 'object') return [];
  const results = Array.isArray(reply.result) ? reply.result.map((entry: { result?: unknown }) => entry?.result) : [reply.result];
  const buffers = new Set<ArrayBuffer>();
  for (const result of results) {
    const body = (result as Partial<AsciiJsonParts> | undefined)?.body;
    if (body instanceof Uint8Array && body.buffer instanceof ArrayBuffer) buffers.add(body.buffer);
  }
  return [...buffers];
}

/** Runs one debug_ call; the answer is ready to post. */
async function trace(call: TraceCall): Promise<unknown> {
  const backend = debugBackend();
  switch (call.method) {
    case 'traceTransaction':
      return tracedJson(await backend.traceTransaction(...call.args));
    case 'traceBlockByNumber':
      return compactEntries(await backend.traceBlockByNumber(...call.args));
    case 'traceBlockByHash':
      return compactEntries(await backend.traceBlockByHash(...call.args));
    case 'traceCall':
      return tracedJson(await backend.traceCall(...call.args));
    case 'traceStateAccess':
      return compactBytes(await backend.traceStateAccess(...call.args));
  }
}

/** Runs one task; the answer is ready to post. */
async function execute(task: Task): Promise<unknown> {
  if (task.kind === 'trace') return trace(task);
  const view = views.at(task.height);
  const env = { common: app.common, vms, view, block: task.block, gasCap: setup.gasCap, deadlineAt: task.deadlineAt };
  switch (task.kind) {
    case 'call':
      return compactBytes(await ethCall(env, task.request, task.overrides));
    case 'estimateGas':
      return estimateGas(env, task.request, task.overrides);
    case 'createAccessList':
      return compactBytes(await createAccessList(env, task.request, task.overrides));
    case 'simulate':
      return compactBytes(await simulate(env, task.base, task.payload));
  }
}

const YOUNG_SPACES = new Set(['new_space', 'new_large_object_space']);

/** Posts this worker's heap figures to the node. */
function reportHeap(): void {
  const stats = getHeapStatistics();
  let youngBytes = 0;
  for (const space of getHeapSpaceStatistics()) if (YOUNG_SPACES.has(space.space_name)) youngBytes += space.space_size;
  const report: HeapReport = {
    heap: { usedBytes: stats.used_heap_size, totalBytes: stats.total_heap_size, youngBytes, externalBytes: stats.external_memory },
    threadId,
  };
  port!.postMessage(report);
}
setInterval(reportHeap, HEAP_REPORT_MS).unref();

// A VM made now is one the first call does not wait for; then the pool may send tasks, and
// knows the thread id to read this worker's CPU time under from the report before.
void vms.run(app.storedView(0), async () => undefined).then(() => {
  reportHeap();
  port.postMessage(WORKER_READY);
});

port.on('message', (task: Task) => {
  void execute(task).then(
    (result): TaskReply => ({ id: task.id, ok: true, result, replayed: replayedTransactions() }),
    (error: unknown): TaskReply => ({ id: task.id, ok: false, failure: failureOf(error), replayed: replayedTransactions() }),
  ).then((reply) => port.postMessage(reply, transfersOf(reply)));
});
