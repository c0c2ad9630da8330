/**
 * An execution worker: a thread of the node process with its own VMs that runs eth_call and
 * eth_estimateGas on the node's SS (borrowed through share tokens, read directly) so that no
 * call, however long, holds the thread that produces blocks. The node terminates a worker
 * whose task outruns `rpc-evm-timeout`; nothing here needs to watch the clock.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { BlockStore } from '../../chain/block-store.js';
import { estimateGas, ethCall } from '../../evm/call.js';
import { CodeCache } from '../../evm/code-cache.js';
import { createChainCommon } from '../../evm/common.js';
import { VmPool } from '../../evm/vm-pool.js';
import { SharedStateReader } from '../../store/index.js';
import { failureOf, type CallTask, type TaskReply, type WorkerSetup } from './protocol.js';

const setup = workerData as WorkerSetup;
const port = parentPort;
if (port === null) throw new Error('the execution worker runs only as a worker thread of stratad');

const state = SharedStateReader.attach(setup.state);
const blocks = BlockStore.attach(setup.blocks);
const common = createChainCommon(setup.evmChainId);
const vms = new VmPool(common, new CodeCache(), (height) => blocks.hashAt(height));

async function run(task: CallTask): Promise<TaskReply> {
  const view = { get: (store: string, key: Uint8Array) => state.get(store, task.height, key) };
  const env = { common, vms, view, block: task.block, gasCap: setup.gasCap };
  try {
    const result = task.kind === 'call' ? await ethCall(env, task.request, task.overrides) : await estimateGas(env, task.request, task.overrides);
    return { id: task.id, ok: true, result };
  } catch (error) {
    return { id: task.id, ok: false, failure: failureOf(error) };
  }
}

port.on('message', (task: CallTask) => {
  void run(task).then((reply) => port.postMessage(reply));
});
