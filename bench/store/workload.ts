/**
 * The storage benchmark's workload definition, shared with the native driver
 * (native/bench/workload.h) so both measure exactly the same keys, values and draws.
 */

const MASK64 = (1n << 64n) - 1n;

/** splitmix64: the benchmark's deterministic PRNG. */
export class SplitMix64 {
  #state: bigint;
  constructor(seed: bigint | number) {
    this.#state = BigInt(seed) & MASK64;
  }
  /** Next 64-bit output. */
  next(): bigint {
    this.#state = (this.#state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = this.#state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }
  /** Uniform integer in [0, n). */
  uniform(n: number): number {
    return Number(this.next() % BigInt(n));
  }
}

function mix(x: bigint): bigint {
  return new SplitMix64(x).next();
}

/** Account index of the ERC-20 token contract. */
export const TOKEN_ACCOUNT = 0xffffffff;
/** Account index of the fee collector. */
export const FEE_COLLECTOR_ACCOUNT = 0xfffffffe;

/** 20-byte address of account `i`. */
export function address(i: number): Buffer {
  const out = Buffer.alloc(20);
  const b = BigInt(i);
  out.writeBigUInt64LE(mix(b), 0);
  out.writeBigUInt64LE(mix(b + 0x100000000n), 8);
  const c = Buffer.alloc(8);
  c.writeBigUInt64LE(mix(b + 0x200000000n));
  c.copy(out, 16, 0, 4);
  return out;
}

/** `bank` key of an account's balance: 0x02 ‖ address. */
export function balanceKey(addr: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(0x02), addr]);
}

/** `evm` key of an account's nonce: 0x0a ‖ address. */
export function nonceKey(addr: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(0x0a), addr]);
}

/** `evm` key of an ERC-20 storage slot: 0x03 ‖ token ‖ slot. */
export function storageKey(token: Uint8Array, slot: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(0x03), token, slot]);
}

/** The token's balance slot of an account: 12 zero bytes ‖ address. */
export function balanceSlot(addr: Uint8Array): Buffer {
  return Buffer.concat([Buffer.alloc(12), addr]);
}

/** The token's transfer-counter slot: 31 zero bytes ‖ 0x01. */
export const COUNTER_SLOT = Buffer.concat([Buffer.alloc(31), Buffer.of(1)]);

/** 32-byte big-endian word holding `n` (< 2^53) in its last 8 bytes. */
export function word(n: number): Buffer {
  const out = Buffer.alloc(32);
  out.writeUInt32BE(Math.floor(n / 0x100000000), 24);
  out.writeUInt32BE(n >>> 0, 28);
  return out;
}

/** Balance of account `i` written at `version`. */
export function balanceValue(i: number, version: number): Buffer {
  return word(i * 1000003 + version);
}

/** Token balance of account `i` written at `version`. */
export function tokenValue(i: number, version: number): Buffer {
  return word(i * 7 + version);
}

/** 8-byte big-endian nonce value. */
export function nonceValue(version: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32BE(Math.floor(version / 0x100000000), 0);
  out.writeUInt32BE(version >>> 0, 4);
  return out;
}

/** Whether a 32-byte word holds `n`. */
export function isWord(value: Buffer | undefined, n: number): boolean {
  if (!value || value.length !== 32) return false;
  return value.readUInt32BE(24) === Math.floor(n / 0x100000000) && value.readUInt32BE(28) === n >>> 0;
}

/** Sizes of one benchmark run. */
export interface WorkloadSize {
  accounts: number;
  versions: number;
  reads: number;
  batches: number;
  blocks: number;
  blockTxs: number;
  seed: number;
}

/** The load version of step `k` (1-based): 100, 200, … */
export function loadVersion(k: number): number {
  return k * 100;
}

/** The newest load version at or below `version`, given `versions` load steps. */
export function visibleLoadVersion(version: number, versions: number): number {
  return Math.min(Math.floor(version / 100), versions) * 100;
}

/** Pre-drawn point reads: account and version per read. */
export interface ReadDraws {
  accounts: Uint32Array;
  versions: Float64Array;
}

/** The `get` phase's draws (generator seeded seed + 1). */
export function drawReads(size: WorkloadSize): ReadDraws {
  const rng = new SplitMix64(size.seed + 1);
  const accounts = new Uint32Array(size.reads);
  const versions = new Float64Array(size.reads);
  for (let r = 0; r < size.reads; r++) {
    accounts[r] = rng.uniform(size.accounts);
    versions[r] = 100 + rng.uniform(size.versions * 100);
  }
  return { accounts, versions };
}

/** The `getMany` phase's draws (seed + 2): one version and 256 accounts per batch. */
export function drawBatches(size: WorkloadSize, batchSize = 256): { versions: Float64Array; accounts: Uint32Array } {
  const rng = new SplitMix64(size.seed + 2);
  const versions = new Float64Array(size.batches);
  const accounts = new Uint32Array(size.batches * batchSize);
  for (let b = 0; b < size.batches; b++) {
    versions[b] = 100 + rng.uniform(size.versions * 100);
    for (let k = 0; k < batchSize; k++) accounts[b * batchSize + k] = rng.uniform(size.accounts);
  }
  return { versions, accounts };
}

/** Pre-drawn transfers: sender and receiver per transaction of every block. */
export function drawTransfers(size: WorkloadSize, seedOffset: number): { senders: Uint32Array; receivers: Uint32Array } {
  const rng = new SplitMix64(size.seed + seedOffset);
  const n = size.blocks * size.blockTxs;
  const senders = new Uint32Array(n);
  const receivers = new Uint32Array(n);
  for (let t = 0; t < n; t++) {
    senders[t] = rng.uniform(size.accounts);
    receivers[t] = rng.uniform(size.accounts);
  }
  return { senders, receivers };
}
