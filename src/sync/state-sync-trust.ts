/**
 * The root of trust of a state sync: the block at `trust-height`, fetched from every server of
 * `rpc-servers` (their consensus RPC `/block?height=`), must carry `trust-hash` on each of them,
 * this chain's id, and a time within `trust-period`. Only then is anything fetched from peers.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { TrustedHeaderError } from './state-sync-errors.js';

/** What the trusted block is checked against. */
export interface TrustSettings {
  rpcServers: readonly string[];
  trustHeight: number;
  /** Lowercase hex of the trusted block hash. */
  trustHash: string;
  trustPeriodMs: number;
  /** genesis.json `chain_id`. */
  chainId: string;
}

/** The trusted block as the RPC servers describe it. */
export interface TrustedHeader {
  height: number;
  /** Lowercase hex. */
  hash: string;
  timeMs: number;
  /** Lowercase hex of the app hash the header carries (after the block before it). */
  appHash: string;
}

/** Attempts per server before it counts as unreachable (it may be starting, or not yet at the height). */
const ATTEMPTS = 5;
const RETRY_MS = 1_000;
const REQUEST_TIMEOUT_MS = 10_000;

/** The HTTP base URL of an `rpc-servers` entry (`host:port`, `tcp://`, `http://` or `https://`). */
export function rpcBaseUrl(server: string): string {
  if (/^https?:\/\//i.test(server)) return server.replace(/\/+$/, '');
  if (/^tcp:\/\//i.test(server)) return `http://${server.slice('tcp://'.length).replace(/\/+$/, '')}`;
  return `http://${server}`;
}

interface BlockAnswer {
  result?: { block_id?: { hash?: unknown }; block?: { header?: { chain_id?: unknown; height?: unknown; time?: unknown; app_hash?: unknown } } };
  error?: { message?: unknown; data?: unknown };
}

/** A header as one RPC server answered it. */
interface RpcHeader extends TrustedHeader {
  chainId: string;
}

async function fetchHeader(server: string, height: number): Promise<RpcHeader> {
  const url = `${rpcBaseUrl(server)}/block?height=${height}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const answer = (await response.json()) as BlockAnswer;
  if (answer.error) throw new Error(`${String(answer.error.message)}: ${String(answer.error.data)}`);
  const hash = answer.result?.block_id?.hash;
  const header = answer.result?.block?.header;
  if (typeof hash !== 'string' || !header || typeof header.time !== 'string' || typeof header.app_hash !== 'string') {
    throw new Error(`${url} did not answer a CometBFT /block result`);
  }
  return { height: Number(header.height), hash: hash.toLowerCase(), timeMs: Date.parse(header.time), appHash: header.app_hash.toLowerCase(), chainId: String(header.chain_id) };
}

/**
 * Fetches the trusted block from every RPC server and checks it. Throws TrustedHeaderError,
 * saying which server said what, when any server is unreachable or disagrees.
 */
export async function fetchTrustedHeader(settings: TrustSettings): Promise<TrustedHeader> {
  const { trustHeight, trustHash } = settings;
  const headers: RpcHeader[] = [];
  for (const server of settings.rpcServers) {
    let last: unknown;
    let header: RpcHeader | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS && !header; attempt++) {
      try {
        header = await fetchHeader(server, trustHeight);
      } catch (error) {
        last = error;
        if (attempt < ATTEMPTS) await sleep(RETRY_MS);
      }
    }
    if (!header) {
      throw new TrustedHeaderError(
        `cannot fetch the trusted block ${trustHeight} from rpc-servers entry ${server} (${last instanceof Error ? last.message : String(last)}); ` +
          'check [statesync] rpc-servers in config.toml and that trust-height is at or below that server\'s height',
      );
    }
    if (header.height !== trustHeight) {
      throw new TrustedHeaderError(`rpc-servers entry ${server} answered block ${header.height} when asked for ${trustHeight}; use another RPC server`);
    }
    if (header.chainId !== settings.chainId) {
      throw new TrustedHeaderError(`rpc-servers entry ${server} serves chain ${header.chainId}, not this node's ${settings.chainId} (genesis.json); use an RPC server of this chain`);
    }
    if (header.hash !== trustHash) {
      throw new TrustedHeaderError(
        `trust-hash mismatch: the block at trust-height ${trustHeight} on ${server} has hash ${header.hash.toUpperCase()}, but [statesync] trust-hash is ` +
          `${trustHash.toUpperCase()}; nothing was imported. Set trust-height and trust-hash from a trusted RPC endpoint (its /block?height=${trustHeight} block_id.hash)`,
      );
    }
    headers.push(header);
  }
  const first = headers[0]!;
  const age = Date.now() - first.timeMs;
  if (!Number.isFinite(first.timeMs) || age > settings.trustPeriodMs) {
    throw new TrustedHeaderError(
      `the trusted block ${trustHeight} is ${Math.round(age / 3_600_000)} h old, older than [statesync] trust-period; pick a more recent trust-height and trust-hash`,
    );
  }
  return { height: first.height, hash: first.hash, timeMs: first.timeMs, appHash: first.appHash };
}
