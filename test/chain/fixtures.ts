/** Builders of blocks and receipts shared by the chain tests. */
import { randomBytes } from 'node:crypto';
import {
  EMPTY_BLOOM,
  ZERO_HASH,
  blockHash,
  ed25519PublicKeyOf,
  signBlockHash,
  txRoot,
  type Block,
  type BlockHeader,
  type Log,
} from '../../src/chain/block.js';
import type { Receipt } from '../../src/chain/block-store.js';

/** A fixed validator seed, so signatures are reproducible across runs. */
export const SEED = Buffer.alloc(32, 7);
export const PUBKEY = ed25519PublicKeyOf(SEED);
export const PROPOSER = Buffer.alloc(20, 0xaa);

/** A header for `height` following `lastBlockHash`, with `txs`' root. */
export function header(height: number, lastBlockHash: Uint8Array, txs: Uint8Array[]): BlockHeader {
  return {
    chainId: 713715n,
    height,
    timeMs: 1_700_000_000_000 + height * 1000,
    proposer: PROPOSER,
    lastBlockHash,
    appHash: Buffer.alloc(32, height & 0xff),
    txRoot: txRoot(txs),
    receiptsRoot: ZERO_HASH,
    gasUsed: BigInt(21000 * txs.length),
    gasLimit: 30_000_000n,
    baseFee: 1_000_000_000n,
    logsBloom: EMPTY_BLOOM,
  };
}

/** A signed block of `txs` at `height`. */
export function signedBlock(height: number, lastBlockHash: Uint8Array, txs: Uint8Array[]): Block {
  const h = header(height, lastBlockHash, txs);
  return { header: h, txs, signature: signBlockHash(blockHash(h), SEED) };
}

/** A random stand-in for a raw transaction (the block store does not parse txs). */
export function fakeTx(): Buffer {
  return randomBytes(100);
}

/** A successful receipt carrying `logs`. */
export function receipt(logs: Log[] = []): Receipt {
  return {
    status: 1,
    txType: 2,
    from: Buffer.alloc(20, 1),
    to: Buffer.alloc(20, 2),
    contractAddress: null,
    gasUsed: 21000n,
    cumulativeGasUsed: 21000n,
    effectiveGasPrice: 1_000_000_000n,
    logs,
  };
}

/** A 32-byte topic from a small number. */
export function topic(n: number): Buffer {
  const out = Buffer.alloc(32);
  out.writeUInt32BE(n, 28);
  return out;
}

/** A 20-byte address from a small number. */
export function address(n: number): Buffer {
  const out = Buffer.alloc(20);
  out.writeUInt32BE(n, 16);
  return out;
}
