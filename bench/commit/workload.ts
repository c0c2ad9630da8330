/**
 * The commit benchmark's workload, modelled on 150k TPS at a 400 ms block time: blocks of
 * 60,000 transfers over funded accounts. Each transfer writes the sender's and receiver's
 * balances (memiavl `bank`) and the sender's nonce (FlatKV, the `evm` store); each block also
 * writes the fee collector's balance once.
 */
import type { KVPair, NamedChangeset } from '../../src/store/index.js';

/** A 20-byte account address for account number `n`. */
export function address(n: number): Buffer {
  const a = Buffer.alloc(20);
  a.writeUInt32BE(0x57a7a000, 0);
  a.writeUInt32BE(n >>> 0, 16);
  return a;
}

const BALANCE_PREFIX = Buffer.from('balance/');

/** memiavl `bank` key of an address. */
export function balanceKey(addr: Buffer): Buffer {
  return Buffer.concat([BALANCE_PREFIX, addr]);
}

/** FlatKV `evm` nonce key of an address (0x0a ‖ address). */
export function nonceKey(addr: Buffer): Buffer {
  return Buffer.concat([Buffer.of(0x0a), addr]);
}

/** A 32-byte big-endian amount. */
export function amount(v: bigint): Buffer {
  const b = Buffer.alloc(32);
  b.writeBigUInt64BE(v, 24);
  return b;
}

/** An 8-byte big-endian nonce. */
export function nonce(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
}

export const FEE_COLLECTOR = address(0xfeecafe);

/** One transfer: account numbers of sender and receiver. */
export interface Transfer {
  from: number;
  to: number;
}

/** splitmix32-style generator: fast, seeded, reproducible. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform integer in [0, n). */
  below(n: number): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) % n;
  }
}

/** The transfers of block `height` over `accounts` funded accounts. */
export function transfers(height: number, count: number, accounts: number): Transfer[] {
  const rng = new Rng(height * 2654435761);
  const out: Transfer[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const from = rng.below(accounts);
    let to = rng.below(accounts);
    if (to === from) to = (to + 1) % accounts;
    out[i] = { from, to };
  }
  return out;
}

/** Genesis: every account funded with nonce 1, in `bank` and in FlatKV. */
export function genesis(accounts: number): NamedChangeset[] {
  const bank: KVPair[] = [];
  const evm: KVPair[] = [];
  for (let n = 0; n < accounts; n++) {
    const addr = address(n);
    bank.push({ key: balanceKey(addr), value: amount(1_000_000_000n) });
    evm.push({ key: nonceKey(addr), value: nonce(1) });
  }
  bank.push({ key: balanceKey(FEE_COLLECTOR), value: amount(0n) });
  return [
    { name: 'bank', pairs: bank },
    { name: 'evm', pairs: evm },
  ];
}

/** The changesets of a block of transfers (values depend only on height and position). */
export function blockChangesets(height: number, block: readonly Transfer[]): NamedChangeset[] {
  const bank: KVPair[] = new Array(block.length * 2 + 1);
  const evm: KVPair[] = new Array(block.length);
  block.forEach((t, i) => {
    const from = address(t.from);
    bank[2 * i] = { key: balanceKey(from), value: amount(BigInt(height * 1_000_000 + i)) };
    bank[2 * i + 1] = { key: balanceKey(address(t.to)), value: amount(BigInt(height * 1_000_000 + i + 1)) };
    evm[i] = { key: nonceKey(from), value: nonce(height * 100_000 + i) };
  });
  bank[block.length * 2] = { key: balanceKey(FEE_COLLECTOR), value: amount(BigInt(height * 21_000 * block.length)) };
  return [
    { name: 'bank', pairs: bank },
    { name: 'evm', pairs: evm },
  ];
}
