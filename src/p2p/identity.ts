/**
 * The node's libp2p identity is its CometBFT node key (config/node_key.json); operators keep
 * seeing CometBFT's node id, the lower hex of the first 20 bytes of sha256(public key).
 */
import { createHash } from 'node:crypto';
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { ed25519PublicKeyOf } from '../chain/block.js';

/**
 * The libp2p private key of a 32-byte ed25519 seed. The public half is derived by OpenSSL:
 * libp2p's own derivation runs in JavaScript and took ~65 ms of every start, time a
 * restarted follower spends before it can ask a peer for a block.
 */
export function libp2pKeyOf(seed: Uint8Array): PrivateKey {
  return privateKeyFromRaw(Buffer.concat([seed, ed25519PublicKeyOf(seed)]));
}

/** CometBFT's node id of a raw 32-byte ed25519 public key. */
export function nodeIdOfPublicKey(publicKey: Uint8Array): string {
  return createHash('sha256').update(publicKey).digest().subarray(0, 20).toString('hex');
}

/** CometBFT's node id of a libp2p peer (undefined when its id does not embed an ed25519 key). */
export function nodeIdOfPeer(peer: PeerId): string | undefined {
  if (peer.type !== 'Ed25519' || peer.publicKey === undefined) return undefined;
  return nodeIdOfPublicKey(peer.publicKey.raw);
}
