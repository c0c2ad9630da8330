/**
 * `persistent_peers`: a comma-separated list of `<node_id>@<host>:<port>`, where the node id is
 * the 20-byte peer key hash written as 40 hex characters.
 */
import { formatHostPort, parseHostPort, type HostPort } from './address.js';
import { accept, reject, type Parsed } from './parse-result.js';

/** One peer the node keeps a connection to. */
export interface PersistentPeer extends HostPort {
  /** 40 lowercase hex characters; the handshake must prove this identity. */
  readonly nodeId: string;
}

const NODE_ID = /^[0-9a-fA-F]{40}$/;

/** Parses one `<node_id>@<host>:<port>` entry. */
export function parsePeer(text: string): Parsed<PersistentPeer> {
  const at = text.indexOf('@');
  if (at < 0) return reject(`"${text}" has no "@"; write <node_id>@<host>:<port>`);
  const nodeId = text.slice(0, at);
  if (!NODE_ID.test(nodeId)) {
    const what = /^[0-9a-fA-F]*$/.test(nodeId) ? `${nodeId.length} hex characters` : 'not hex';
    return reject(`node id "${nodeId}" is ${what}; a node id is 40 hex characters`);
  }
  const address = parseHostPort(text.slice(at + 1), { allowEmptyHost: false, allowPortZero: false });
  if (!address.ok) return reject(`"${text}": ${address.reason}`);
  return accept({ nodeId: nodeId.toLowerCase(), ...address.value });
}

/** Parses the whole comma-separated list; "" is an empty list. */
export function parsePersistentPeers(text: string): Parsed<readonly PersistentPeer[]> {
  if (text.trim() === '') return accept([]);
  const peers: PersistentPeer[] = [];
  const seen = new Set<string>();
  const entries = text.split(',');
  for (const [index, raw] of entries.entries()) {
    const entry = raw.trim();
    const position = `entry ${index + 1} of ${entries.length}`;
    if (entry === '') return reject(`${position} is empty; remove the extra comma`);
    const peer = parsePeer(entry);
    if (!peer.ok) return reject(`${position}: ${peer.reason}`);
    if (seen.has(peer.value.nodeId)) return reject(`${position}: node id ${peer.value.nodeId} is listed twice`);
    seen.add(peer.value.nodeId);
    peers.push(peer.value);
  }
  return accept(peers);
}

/** Writes one peer as `<node_id>@<host>:<port>`. */
export function formatPeer(peer: PersistentPeer): string {
  return `${peer.nodeId}@${formatHostPort(peer)}`;
}

/** Writes the list back in the file's comma-separated form. */
export function formatPersistentPeers(peers: readonly PersistentPeer[]): string {
  return peers.map(formatPeer).join(',');
}
