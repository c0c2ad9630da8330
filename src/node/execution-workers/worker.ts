/**
 * An execution worker: a thread of the node process with its own VMs that runs eth_call,
 * eth_estimateGas and debug_trace* on the node's SS and block store (borrowed through share
 * tokens, read directly), so that no request, however long, holds the thread that produces
 * blocks. The node terminates a worker whose task outruns its deadline; traces also keep
 * their own per-transaction deadlines here.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
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
import { TraceService } from '../../trace/service/index.js';
import { NodeDebugBackend } from '../debug-backend.js';
import { HeightViews } from './height-views.js';
import { WORKER_READY, compactBytes, failureOf, type Task, type TaskReply, type TraceCall, type WorkerSetup } from './protocol.js';

/** Niceness of a worker thread: block production and the consensus RPC win the CPU from it. */
const WORKER_NICENESS = 10;

/**
 * Lowers this thread's scheduling priority. On Linux a thread is scheduled as a task of its
 * own, and setpriority on its task id changes that thread alone; elsewhere this does nothing.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, WORKER_NICENESS);
  } catch {
    // No /proc (not Linux) or not permitted: the worker runs at the node's priority.
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

/** Block traces with compact transaction hashes; their results are JSON already (walking them would cost as much as the clone). */
function compactEntries(entries: BlockTraceEntry[] | undefined): BlockTraceEntry[] | undefined {
  return entries?.map((entry) => ({ txHash: compactBytes(entry.txHash), result: entry.result }));
}

/** Runs one debug_ call; the answer is ready to post. */
async function trace(call: TraceCall): Promise<unknown> {
  const backend = debugBackend();
  switch (call.method) {
    case 'traceTransaction':
      return backend.traceTransaction(...call.args);
    case 'traceBlockByNumber':
      return compactEntries(await backend.traceBlockByNumber(...call.args));
    case 'traceBlockByHash':
      return compactEntries(await backend.traceBlockByHash(...call.args));
    case 'traceCall':
      return backend.traceCall(...call.args);
    case 'traceStateAccess':
      return compactBytes(await backend.traceStateAccess(...call.args));
  }
}

/** Runs one task; the answer is ready to post. */
async function execute(task: Task): Promise<unknown> {
  if (task.kind === 'trace') return trace(task);
  const view = views.at(task.height);
  const env = { common: app.common, vms, view, block: task.block, gasCap: setup.gasCap };
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

// A VM made now is one the first call does not wait for; then the pool may send tasks.
void vms.run(app.storedView(0), async () => undefined).then(() => port.postMessage(WORKER_READY));

port.on('message', (task: Task) => {
  execute(task).then(
    (result) => port.postMessage({ id: task.id, ok: true, result } satisfies TaskReply),
    (error: unknown) => port.postMessage({ id: task.id, ok: false, failure: failureOf(error) } satisfies TaskReply),
  );
});
