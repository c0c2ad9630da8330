/** CometBFT's JSON conventions: upper-case hex hashes, base64 bytes, decimal strings, RFC 3339 times. */
import type { ConsensusBlock, NodeIdentity } from './backend.js';

/** Upper-case hex without prefix, as CometBFT writes hashes and addresses. */
export function upperHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

/** Base64, as CometBFT writes txs, keys and signatures. */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** RFC 3339 UTC time with the fraction trimmed of trailing zeros (Go's RFC3339Nano). */
export function rfc3339(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/** `node_info` of /status and of each /net_info peer. */
export function formatNodeInfo(node: NodeIdentity): Record<string, unknown> {
  return {
    protocol_version: { p2p: '8', block: '11', app: '0' },
    id: node.id,
    listen_addr: node.listenAddr,
    network: node.network,
    version: node.version,
    channels: '40202122233038606100',
    moniker: node.moniker,
    other: { tx_index: 'on', rpc_address: node.rpcAddress },
  };
}

/** `{hash, parts}` block id. */
export function blockId(hash: Uint8Array): Record<string, unknown> {
  return { hash: upperHex(hash), parts: { total: 1, hash: upperHex(hash) } };
}

/** The block header object. */
export function formatHeader(block: ConsensusBlock): Record<string, unknown> {
  return {
    version: { block: '11', app: '0' },
    chain_id: block.chainId,
    height: String(block.height),
    time: rfc3339(block.timeMs),
    last_block_id: blockId(block.lastBlockHash),
    data_hash: upperHex(block.dataHash),
    app_hash: upperHex(block.appHash),
    proposer_address: upperHex(block.proposerAddress),
  };
}
