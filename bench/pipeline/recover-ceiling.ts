/**
 * The sender-recovery ceiling of this machine: the node's batched native recovery (libsecp256k1
 * and keccak on a pool of native threads, `SenderRecovery`) over the same pre-signed
 * transactions, their signing hashes and signatures prepared untimed; the rate is all
 * transactions over the wall time of the one batch.
 */
import { createTxFromRLP } from '@ethereumjs/tx';
import { createChainCommon } from '../../src/evm/common.js';
import { recoveryItemOf } from '../../src/evm/signing.js';
import { SenderRecovery } from '../../src/store/index.js';

/** Recovered senders per second on `threads` native threads. */
export async function recoverCeiling(raws: readonly Uint8Array[], chainId: number, threads: number): Promise<number> {
  const common = createChainCommon(chainId);
  const items = raws.map((raw, i) => {
    const item = recoveryItemOf(createTxFromRLP(raw, { common }), raw);
    if (item === undefined) throw new Error(`transaction ${i} has no recoverable signature`);
    return item;
  });
  const pool = new SenderRecovery(threads);
  // The pool's threads start on first use: warm them outside the timing.
  await pool.recover(items.slice(0, 64));
  const started = performance.now();
  const senders = await pool.recover(items);
  const seconds = (performance.now() - started) / 1000;
  const missing = senders.filter((sender) => sender === undefined).length;
  if (missing > 0) throw new Error(`recovered ${items.length - missing} of ${items.length} senders`);
  return items.length / seconds;
}
