/**
 * What the migration learns from the trusted node's consensus RPC: its chain, latest height,
 * the block hash at the trust height, and its p2p address (the node state-syncs from it).
 */
import { TrustedRpcError } from './errors.js';

/** How long one request to the trusted node may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/** The trusted node as `/status` describes it. */
export interface TrustedNodeStatus {
  /** The base URL requests go to (`http://host:port`). */
  readonly url: string;
  /** `node_info.network`: the chain id. */
  readonly chainId: string;
  /** `node_info.id`. */
  readonly nodeId: string;
  /** `host:port` of its p2p listener, with an unspecified host replaced by the RPC URL's host. */
  readonly p2pAddress: string;
  readonly latestHeight: number;
  readonly earliestHeight: number;
}

/** The HTTP base URL of a consensus RPC server given as a URL, `tcp://host:port` or `host:port`. */
export function consensusRpcUrl(server: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TrustedRpcError(`"${server}" is not a consensus RPC address; give it as http://<host>:<port>`);
  }
  if (url.protocol === 'tcp:') url = new URL(`http://${url.host}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TrustedRpcError(`"${server}": use http://, https:// or tcp:// for the consensus RPC`);
  }
  return url.origin;
}

async function getResult(base: string, path: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new TrustedRpcError(`GET ${base}${path} failed: ${cause}`);
  }
  let body: { result?: unknown; error?: { data?: unknown; message?: unknown } };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new TrustedRpcError(`GET ${base}${path} answered HTTP ${response.status} without a JSON body; is it a consensus RPC (port 26657)?`);
  }
  if (body.error !== undefined) {
    throw new TrustedRpcError(`GET ${base}${path} answered an error: ${String(body.error.data ?? body.error.message)}`);
  }
  if (typeof body.result !== 'object' || body.result === null) {
    throw new TrustedRpcError(`GET ${base}${path} answered HTTP ${response.status} without a result; is it a consensus RPC (port 26657)?`);
  }
  return body.result as Record<string, unknown>;
}

function field(object: unknown, path: string, where: string): string {
  let value: unknown = object;
  for (const part of path.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value !== 'string' || value === '') throw new TrustedRpcError(`${where} has no ${path}`);
  return value;
}

function heightField(object: unknown, path: string, where: string): number {
  const text = field(object, path, where);
  const height = Number(text);
  if (!Number.isSafeInteger(height) || height < 0) throw new TrustedRpcError(`${where} ${path} is not a height: "${text}"`);
  return height;
}

/** `/status` of the trusted node. */
export async function trustedNodeStatus(server: string): Promise<TrustedNodeStatus> {
  const url = consensusRpcUrl(server);
  const where = `${url}/status`;
  const result = await getResult(url, '/status');
  const listen = field(result, 'node_info.listen_addr', where).replace(/^[a-z]+:\/\//i, '');
  const colon = listen.lastIndexOf(':');
  if (colon < 0) throw new TrustedRpcError(`${where} node_info.listen_addr "${listen}" has no port`);
  let host = listen.slice(0, colon);
  const port = listen.slice(colon + 1);
  // A listener on every interface is reachable at the address its RPC was reached at.
  if (host === '' || host === '0.0.0.0' || host === '[::]' || host === '::') host = new URL(url).hostname;
  return {
    url,
    chainId: field(result, 'node_info.network', where),
    nodeId: field(result, 'node_info.id', where),
    p2pAddress: `${host}:${port}`,
    latestHeight: heightField(result, 'sync_info.latest_block_height', where),
    earliestHeight: heightField(result, 'sync_info.earliest_block_height', where),
  };
}

/** The block hash at `height` (64 hex characters, upper case as CometBFT writes it). */
export async function trustedBlockHash(status: TrustedNodeStatus, height: number): Promise<string> {
  const where = `${status.url}/block?height=${height}`;
  const result = await getResult(status.url, `/block?height=${height}`);
  const hash = field(result, 'block_id.hash', where);
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new TrustedRpcError(`${where} block_id.hash "${hash}" is not 64 hex characters`);
  return hash.toUpperCase();
}
