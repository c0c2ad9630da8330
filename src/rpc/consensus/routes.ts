/**
 * The consensus RPC routes over HTTP GET with CometBFT's envelope
 * `{"jsonrpc":"2.0","id":-1,"result":…}` (or `"error":{code,message,data}`).
 */
import type { HttpReply, HttpRequestView, HttpTransport } from '../transport/types.js';
import type { ConsensusBackend } from './backend.js';
import { base64, blockId, formatHeader, formatNodeInfo, rfc3339, upperHex } from './format.js';

/** Settings of the consensus routes. */
export interface ConsensusRoutesOptions {
  /** `lag-threshold`: /lag_status answers 417 when the lag is larger. */
  lagThreshold: number;
}

/** The CometBFT result envelope with HTTP 200 (or `status`). */
export function resultReply(result: unknown, status = 200): HttpReply {
  return { status, body: JSON.stringify({ jsonrpc: '2.0', id: -1, result }) };
}

/** The CometBFT error envelope; `data` carries the detail, as CometBFT does. */
export function errorReply(status: number, code: number, message: string, data: string): HttpReply {
  return { status, body: JSON.stringify({ jsonrpc: '2.0', id: -1, error: { code, message, data } }) };
}

/** The `height` query parameter: absent means latest; `5` and `"5"` are accepted. */
function requestedHeight(request: HttpRequestView, latest: number): number | HttpReply {
  const raw = new URLSearchParams(request.query).get('height');
  if (raw === null || raw === '') return latest;
  const text = raw.replace(/^"(.*)"$/, '$1');
  if (!/^[0-9]+$/.test(text)) return errorReply(500, -32602, 'Invalid params', `error converting http params to arguments: invalid height ${JSON.stringify(raw)}: want a positive integer`);
  const height = Number(text);
  if (height === 0) return errorReply(500, -32603, 'Internal error', 'height must be greater than 0, but got 0');
  return height;
}

/** Checks a height against the stored range with CometBFT's messages. */
function heightProblem(height: number, earliest: number, latest: number): HttpReply | undefined {
  if (height > latest) return errorReply(500, -32603, 'Internal error', `height ${height} must be less than or equal to the current blockchain height ${latest}`);
  if (height < earliest) return errorReply(500, -32603, 'Internal error', `height ${height} is not available, lowest height is ${earliest}`);
  return undefined;
}

/** The lag of this node behind its best peer (0 with no peers ahead). */
export function lagStatus(backend: ConsensusBackend): { current: number; maxPeer: number; lag: number } {
  const current = backend.syncInfo().latestBlockHeight;
  const maxPeer = backend.peers().reduce((best, peer) => Math.max(best, peer.height), 0);
  return { current, maxPeer, lag: Math.max(0, maxPeer - current) };
}

/** Registers /status, /net_info, /lag_status, /health, /block and /commit on `transport`. */
export function registerConsensusRoutes(transport: HttpTransport, backend: ConsensusBackend, options: ConsensusRoutesOptions): void {
  transport.route('GET', '/health', () => resultReply({}));
  transport.route('GET', '/status', () => {
    const sync = backend.syncInfo();
    const validator = backend.validatorInfo();
    return resultReply({
      node_info: formatNodeInfo(backend.nodeInfo()),
      sync_info: {
        latest_block_hash: upperHex(sync.latestBlockHash),
        latest_app_hash: upperHex(sync.latestAppHash),
        latest_block_height: String(sync.latestBlockHeight),
        latest_block_time: rfc3339(sync.latestBlockTimeMs),
        earliest_block_hash: upperHex(sync.earliestBlockHash),
        earliest_app_hash: upperHex(sync.earliestAppHash),
        earliest_block_height: String(sync.earliestBlockHeight),
        earliest_block_time: rfc3339(sync.earliestBlockTimeMs),
        catching_up: sync.catchingUp,
        ...(sync.halted !== undefined ? { halted: sync.halted } : {}),
      },
      validator_info:
        validator === null
          ? { address: '', pub_key: null, voting_power: '0' }
          : {
              address: upperHex(validator.address),
              pub_key: { type: 'tendermint/PubKeyEd25519', value: base64(validator.pubKey) },
              voting_power: validator.votingPower.toString(),
            },
    });
  });
  transport.route('GET', '/net_info', () => {
    const peers = backend.peers();
    return resultReply({
      listening: true,
      listeners: [`Listener(@${backend.nodeInfo().listenAddr})`],
      n_peers: String(peers.length),
      peers: peers.map((peer) => ({ node_info: formatNodeInfo(peer.node), is_outbound: peer.isOutbound, remote_ip: peer.remoteIp })),
    });
  });
  transport.route('GET', '/lag_status', () => {
    const { current, maxPeer, lag } = lagStatus(backend);
    return resultReply({ current_height: String(current), max_peer_height: String(maxPeer), lag: String(lag) }, lag > options.lagThreshold ? 417 : 200);
  });
  transport.route('GET', '/block', async (request) => {
    const sync = backend.syncInfo();
    const height = requestedHeight(request, sync.latestBlockHeight);
    if (typeof height !== 'number') return height;
    const problem = heightProblem(height, sync.earliestBlockHeight, sync.latestBlockHeight);
    if (problem !== undefined) return problem;
    const block = await backend.block(height);
    if (block === null) return errorReply(500, -32603, 'Internal error', `block at height ${height} not found`);
    return resultReply({
      block_id: blockId(block.hash),
      block: { header: formatHeader(block), data: { txs: block.txs.map(base64) }, evidence: { evidence: [] }, last_commit: null },
    });
  });
  transport.route('GET', '/commit', async (request) => {
    const sync = backend.syncInfo();
    const height = requestedHeight(request, sync.latestBlockHeight);
    if (typeof height !== 'number') return height;
    const problem = heightProblem(height, sync.earliestBlockHeight, sync.latestBlockHeight);
    if (problem !== undefined) return problem;
    const commit = await backend.commit(height);
    if (commit === null) return errorReply(500, -32603, 'Internal error', `commit at height ${height} not found`);
    return resultReply({
      signed_header: {
        header: formatHeader(commit.block),
        commit: {
          height: String(commit.block.height),
          round: 0,
          block_id: blockId(commit.block.hash),
          signatures: [
            {
              block_id_flag: 2,
              validator_address: upperHex(commit.validatorAddress),
              timestamp: rfc3339(commit.block.timeMs),
              signature: base64(commit.signature),
            },
          ],
        },
      },
      canonical: true,
    });
  });
}
