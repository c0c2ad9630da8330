/**
 * One thread of the sender-recovery ceiling: decodes its share of the transactions with the
 * node's chain rules (untimed), says it is ready, and on the go message recovers every sender
 * with the call admission makes (`getSenderAddress` on the node's Common, native secp256k1).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createTxFromRLP } from '@ethereumjs/tx';
import { createChainCommon } from '../../src/evm/common.js';

/** What the main thread hands each worker. */
export interface RecoverWorkerData {
  raws: Uint8Array[];
  chainId: number;
}

const port = parentPort!;
const { raws, chainId } = workerData as RecoverWorkerData;
const common = createChainCommon(chainId);
// Each decoded transaction is new: its sender has never been recovered, so nothing is cached.
const txs = raws.map((raw) => createTxFromRLP(raw, { common }));
port.postMessage({ ready: true });
port.once('message', () => {
  const started = performance.now();
  for (const tx of txs) tx.getSenderAddress();
  port.postMessage({ recovered: txs.length, ms: performance.now() - started });
});
