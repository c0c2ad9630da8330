/** keccak256 and the EIP-55 address spelling: the one implementation every layer uses (chain/hash.ts re-exports it). */
import createKeccakHash from 'keccak';

/** The Keccak sponge inside `keccak`'s hashing stream (native, or its JavaScript fallback). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

const EMPTY_KECCAK = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

/**
 * One sponge reused for every hash: `keccak`'s API builds a Node stream per hash, which costs
 * more than hashing a short input (about 10 µs against 4). Used only if it hashes the empty
 * input right, so a change inside `keccak` falls back to the stream.
 */
const sponge: KeccakSponge | undefined = (() => {
  const state = (createKeccakHash('keccak256') as unknown as { _state?: Partial<KeccakSponge> })._state;
  if (typeof state?.initialize !== 'function' || typeof state.absorb !== 'function' || typeof state.absorbLastFewBits !== 'function' || typeof state.squeeze !== 'function') return undefined;
  const candidate = state as KeccakSponge;
  candidate.initialize(1088, 512);
  candidate.absorbLastFewBits(0x01);
  return candidate.squeeze(32).toString('hex') === EMPTY_KECCAK ? candidate : undefined;
})();

/** keccak256 of `data` (32 bytes). */
export function keccak256(data: Uint8Array): Buffer {
  const input = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (sponge === undefined) return createKeccakHash('keccak256').update(input).digest();
  // keccak256: rate 1088 bits, capacity 512, padding suffix 0x01.
  sponge.initialize(1088, 512);
  sponge.absorb(input);
  sponge.absorbLastFewBits(0x01);
  return sponge.squeeze(32);
}

const remembered = new WeakMap<Uint8Array, Buffer>();

/**
 * keccak256 of bytes that never change once made (a raw transaction), remembered per array:
 * a block's transactions are hashed where they are decoded, verified against the tx root,
 * stored and dropped from the mempool — the same arrays each time. The hash is shared: callers
 * must not write to it.
 */
export function keccak256Memo(bytes: Uint8Array): Buffer {
  let hash = remembered.get(bytes);
  if (hash === undefined) remembered.set(bytes, (hash = keccak256(bytes)));
  return hash;
}

/** EIP-55 mixed-case form of a 20-byte address (how geth's common.Address.Hex prints it). */
export function checksumAddress(address: Uint8Array): string {
  const hex = Buffer.from(address).toString('hex');
  const hash = keccak256(Buffer.from(hex, 'latin1')).toString('hex');
  let out = '0x';
  for (let i = 0; i < hex.length; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out;
}

/** Lets keccak256Memo answer `hash` for `bytes`, which the caller computed elsewhere (on a native thread). */
export function rememberKeccak256(bytes: Uint8Array, hash: Buffer): void {
  remembered.set(bytes, hash);
}
