/**
 * The peer: the same transfers committed through @ethereumjs/mpt, the Merkle Patricia trie a
 * TypeScript developer would use for Ethereum state (in memory, keys hashed with keccak-256).
 * Each transfer rewrites the sender's account (nonce, balance) and the receiver's; the fee
 * collector is written once per block; the root is read at the end.
 */
import { createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { createAccount } from '@ethereumjs/util';
import { FEE_COLLECTOR, address, type Transfer } from './workload.js';

function accountRlp(nonce: number, balance: bigint): Uint8Array {
  return createAccount({ nonce: BigInt(nonce), balance }).serialize();
}

/** An MPT holding `accounts` funded accounts. */
export async function buildMpt(accounts: number): Promise<MerklePatriciaTrie> {
  const mpt = await createMPT({ useKeyHashing: true });
  for (let n = 0; n < accounts; n++) await mpt.put(address(n), accountRlp(1, 1_000_000_000n));
  await mpt.put(FEE_COLLECTOR, accountRlp(0, 0n));
  return mpt;
}

/** Commits one block of transfers; returns the seconds it took. */
export async function commitMptBlock(mpt: MerklePatriciaTrie, height: number, block: readonly Transfer[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < block.length; i++) {
    const t = block[i]!;
    await mpt.put(address(t.from), accountRlp(height * 100_000 + i, BigInt(height * 1_000_000 + i)));
    await mpt.put(address(t.to), accountRlp(1, BigInt(height * 1_000_000 + i + 1)));
  }
  await mpt.put(FEE_COLLECTOR, accountRlp(0, BigInt(height * 21_000 * block.length)));
  mpt.root();
  return (performance.now() - started) / 1000;
}
