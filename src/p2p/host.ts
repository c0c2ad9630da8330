/**
 * The peer host: a libp2p node over TCP with noise (authenticated encryption) and yamux
 * (multiplexing), whose key is the node key. It keeps a connection to every persistent peer
 * (re-dialled with backoff), accepts a bounded number of inbound peers, checks that a dialled
 * peer's proven key hashes to the id it was listed under, and carries bounded msgpackr
 * messages on versioned protocols. A peer whose input breaks a protocol is dropped; the node
 * never is.
 */
import './polyfill.js';
import { isIPv4, isIPv6 } from 'node:net';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import type { Connection, Libp2p, PeerId, Stream } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr';
import { createLibp2p } from 'libp2p';
import type { PersistentPeer } from '../config/peers.js';
import type { Logger } from '../log/logger.js';
import { MessageDecodeError, MessageEncodeError, MessageTooLargeError, PeerIdMismatchError, PeerRequestError } from './errors.js';
import { readOneMessage, writeMessage } from './framing.js';
import { libp2pKeyOf, nodeIdOfPeer } from './identity.js';

/** Settings of the host. */
export interface PeerHostOptions {
  /** The node key's 32-byte ed25519 seed. */
  seed: Uint8Array;
  /** `[p2p] laddr`; port 0 picks a free one. */
  listen: { host: string; port: number };
  persistentPeers: readonly PersistentPeer[];
  /** `max-packet-msg-payload-size`: the largest message sent or accepted. */
  maxMessageBytes: number;
  /** Most peers that dialled us at once. */
  maxInboundPeers?: number;
  /** First and longest wait between dials of an unreachable persistent peer. */
  redialMinMs?: number;
  redialMaxMs?: number;
  /** After this long without any peer (with persistent peers configured), `No peers available` is logged. */
  noPeersWarnMs?: number;
  logger: Logger;
}

/** A connected, verified peer. */
export interface Peer {
  /** CometBFT node id (40 hex). */
  readonly nodeId: string;
  readonly peerId: PeerId;
  /** `host:port` of the remote end of the connection. */
  readonly address: string;
  readonly remoteIp: string;
  readonly direction: 'inbound' | 'outbound';
}

/** Answers one request message; `undefined` sends no reply. A thrown error drops the peer. */
export type RequestHandler = (message: unknown, peer: Peer) => Promise<unknown> | unknown;

const DEFAULT_MAX_INBOUND = 40;
const STREAMS_PER_PROTOCOL = 64;

/** The multiaddr of a TCP `host:port`. */
export function tcpMultiaddr(host: string, port: number): Multiaddr {
  if (isIPv4(host)) return multiaddr(`/ip4/${host}/tcp/${port}`);
  if (isIPv6(host)) return multiaddr(`/ip6/${host}/tcp/${port}`);
  if (host === 'localhost') return multiaddr(`/ip4/127.0.0.1/tcp/${port}`);
  return multiaddr(`/dns4/${host}/tcp/${port}`);
}

/** The operator-facing text of a failed dial, in CometBFT's words where it has them. */
export function dialFailureText(peer: PersistentPeer, error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const causes = [message];
  for (let e: unknown = error; e instanceof Error && e.cause !== undefined; e = e.cause) causes.push(String(e.cause));
  const text = causes.join(' ');
  const target = `${peer.host}:${peer.port}`;
  if (/ECONNREFUSED|connection refused/i.test(text)) return `dial tcp ${target}: connect: connection refused`;
  if (/noise|handshake|decrypt|EOF|ECONNRESET|encrypt/i.test(text)) return `handshake failed with ${peer.nodeId}@${target}: ${message}`;
  return `dial tcp ${target}: ${message}`;
}

/** A libp2p host speaking Strata's protocols. */
export class PeerHost {
  readonly #node: Libp2p;
  readonly #options: PeerHostOptions;
  readonly #logger: Logger;
  readonly #peers = new Map<string, Peer>();
  readonly #byPeerId = new Map<string, string>();
  readonly #connectListeners: Array<(peer: Peer) => void> = [];
  readonly #disconnectListeners: Array<(peer: Peer) => void> = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;
  #noPeersSince = Date.now();

  private constructor(node: Libp2p, options: PeerHostOptions) {
    this.#node = node;
    this.#options = options;
    this.#logger = options.logger;
  }

  /** Starts listening and dialling the persistent peers. */
  static async start(options: PeerHostOptions): Promise<PeerHost> {
    const privateKey = libp2pKeyOf(options.seed);
    const maxInbound = options.maxInboundPeers ?? DEFAULT_MAX_INBOUND;
    const listenHost = options.listen.host === '' ? '0.0.0.0' : options.listen.host;
    const node = await createLibp2p({
      privateKey,
      addresses: { listen: [tcpMultiaddr(listenHost, options.listen.port).toString()] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionManager: {
        maxConnections: maxInbound + options.persistentPeers.length + 4,
        maxIncomingPendingConnections: 8,
        dialTimeout: 5_000,
      },
      // Strata's own protocols tell a dead peer by their request timeouts.
      connectionMonitor: { enabled: false },
      start: false,
    });
    const host = new PeerHost(node, options);
    node.addEventListener('connection:open', (event) => host.#opened(event.detail));
    node.addEventListener('peer:disconnect', (event) => host.#gone(event.detail));
    await node.start();
    for (const peer of options.persistentPeers) host.#schedule(() => host.#dial(peer, options.redialMinMs ?? 250), 0);
    if (options.persistentPeers.length > 0) host.#watchNoPeers();
    return host;
  }

  /** This node's CometBFT id. */
  get nodeId(): string {
    return nodeIdOfPeer(this.#node.peerId) ?? '';
  }

  /** The TCP port the host listens on. */
  get port(): number {
    for (const address of this.#node.getMultiaddrs()) {
      const match = /\/tcp\/(\d+)/.exec(address.toString());
      if (match) return Number(match[1]);
    }
    return 0;
  }

  /** The connected, verified peers. */
  peers(): Peer[] {
    return [...this.#peers.values()];
  }

  /** Calls `listener` when a peer is verified and connected. */
  onConnect(listener: (peer: Peer) => void): void {
    this.#connectListeners.push(listener);
  }

  /** Calls `listener` when a peer's last connection closes. */
  onDisconnect(listener: (peer: Peer) => void): void {
    this.#disconnectListeners.push(listener);
  }

  /**
   * Serves `protocol`: each inbound stream carries one request message, answered by the
   * handler's reply. A malformed or oversized message, or a handler that throws, drops the peer.
   * `maxMessageBytes` replaces `max-packet-msg-payload-size` for a protocol with its own bound.
   */
  async handle(protocol: string, handler: RequestHandler, options: { maxMessageBytes?: number } = {}): Promise<void> {
    const limit = options.maxMessageBytes ?? this.#options.maxMessageBytes;
    await this.#node.handle(
      protocol,
      async (stream: Stream, connection: Connection) => {
        const peer = this.#peerOf(connection.remotePeer);
        if (!peer) {
          stream.abort(new PeerRequestError('stream from an unverified peer'));
          return;
        }
        try {
          const request = await readOneMessage(stream, limit);
          if (request === undefined) throw new MessageDecodeError(protocol, 'stream closed before a request');
          const reply = await handler(request, peer);
          if (reply !== undefined) await writeMessage(stream, reply, limit);
          await stream.close();
        } catch (error) {
          stream.abort(error instanceof Error ? error : new Error(String(error)));
          if (error instanceof MessageEncodeError) {
            this.#logger.error('reply too large for max-packet-msg-payload-size', { protocol, peer: peer.nodeId, error: error.message });
            return;
          }
          this.drop(peer, error);
        }
      },
      { maxInboundStreams: STREAMS_PER_PROTOCOL, maxOutboundStreams: STREAMS_PER_PROTOCOL },
    );
  }

  /**
   * Sends `message` on a new `protocol` stream to `peer` and returns its reply (`expectReply`)
   * or undefined. A reply that breaks the framing drops the peer and throws. `maxMessageBytes`
   * is the protocol's own bound, when it has one (as in `handle`).
   */
  async request(
    peer: Peer,
    protocol: string,
    message: unknown,
    options: { timeoutMs: number; expectReply: boolean; maxMessageBytes?: number },
  ): Promise<unknown> {
    const limit = options.maxMessageBytes ?? this.#options.maxMessageBytes;
    const signal = AbortSignal.timeout(options.timeoutMs);
    let stream: Stream;
    try {
      stream = await this.#node.dialProtocol(peer.peerId, protocol, { signal });
    } catch (error) {
      throw new PeerRequestError(`${protocol} to ${peer.nodeId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const onAbort = (): void => stream.abort(new PeerRequestError(`${protocol} to ${peer.nodeId} timed out after ${options.timeoutMs} ms`));
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await writeMessage(stream, message, limit);
      if (!options.expectReply) {
        await stream.close({ signal });
        return undefined;
      }
      const reply = await readOneMessage(stream, limit);
      await stream.close({ signal }).catch(() => undefined);
      if (reply === undefined) throw new PeerRequestError(`${protocol} to ${peer.nodeId}: the stream closed without a reply`);
      return reply;
    } catch (error) {
      stream.abort(error instanceof Error ? error : new Error(String(error)));
      if (error instanceof MessageTooLargeError || error instanceof MessageDecodeError) this.drop(peer, error);
      if (error instanceof PeerRequestError || error instanceof MessageEncodeError) throw error;
      if (signal.aborted) throw new PeerRequestError(`${protocol} to ${peer.nodeId} timed out after ${options.timeoutMs} ms`);
      throw new PeerRequestError(`${protocol} to ${peer.nodeId}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Disconnects `peer` because of `reason` (a persistent peer is dialled again later). */
  drop(peer: Peer, reason: unknown): void {
    if (!this.#peers.has(peer.nodeId)) return;
    this.#logger.warn('dropping peer', { peer: peer.nodeId, address: peer.address, reason: reason instanceof Error ? reason.message : String(reason) });
    this.#forget(peer);
    void this.#node.hangUp(peer.peerId).catch(() => undefined);
  }

  /** Closes every connection and the listener. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await this.#node.stop();
  }

  #peerOf(peerId: PeerId): Peer | undefined {
    const nodeId = this.#byPeerId.get(peerId.toString());
    return nodeId === undefined ? undefined : this.#peers.get(nodeId);
  }

  #schedule(run: () => void, ms: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#stopped) run();
    }, ms);
    this.#timers.add(timer);
  }

  /** Registers a verified connection's peer (once per peer), telling the listeners. */
  #register(connection: Connection, nodeId: string): void {
    if (this.#peers.has(nodeId) || this.#stopped) return;
    const address = connection.remoteAddr.toString();
    const match = /\/ip[46]\/([^/]+)\/tcp\/(\d+)/.exec(address);
    const peer: Peer = {
      nodeId,
      peerId: connection.remotePeer,
      address: match ? `${match[1]}:${match[2]}` : address,
      remoteIp: match?.[1] ?? '',
      direction: connection.direction,
    };
    this.#peers.set(nodeId, peer);
    this.#byPeerId.set(peer.peerId.toString(), nodeId);
    this.#logger.info('peer connected', { peer: nodeId, address: peer.address, direction: peer.direction });
    for (const listener of this.#connectListeners) listener(peer);
  }

  #forget(peer: Peer): void {
    if (this.#peers.get(peer.nodeId) !== peer) return;
    this.#peers.delete(peer.nodeId);
    this.#byPeerId.delete(peer.peerId.toString());
    if (this.#peers.size === 0) this.#noPeersSince = Date.now();
    this.#logger.info('peer disconnected', { peer: peer.nodeId, address: peer.address });
    for (const listener of this.#disconnectListeners) listener(peer);
    const persistent = this.#options.persistentPeers.find((p) => p.nodeId === peer.nodeId);
    if (persistent) this.#schedule(() => this.#dial(persistent, this.#options.redialMinMs ?? 250), this.#options.redialMinMs ?? 250);
  }

  /** An inbound connection is accepted under the inbound cap; outbound ones are checked in #dial. */
  #opened(connection: Connection): void {
    if (connection.direction !== 'inbound') return;
    const nodeId = nodeIdOfPeer(connection.remotePeer);
    if (nodeId === undefined) {
      void connection.close().catch(() => undefined);
      return;
    }
    const inbound = [...this.#peers.values()].filter((p) => p.direction === 'inbound').length;
    if (!this.#peers.has(nodeId) && inbound >= (this.#options.maxInboundPeers ?? DEFAULT_MAX_INBOUND)) {
      this.#logger.warn('refusing an inbound peer: the inbound peer limit is reached', { peer: nodeId, limit: this.#options.maxInboundPeers ?? DEFAULT_MAX_INBOUND });
      void connection.close().catch(() => undefined);
      return;
    }
    this.#register(connection, nodeId);
  }

  #gone(peerId: PeerId): void {
    const peer = this.#peerOf(peerId);
    if (peer) this.#forget(peer);
  }

  /** Dials a persistent peer; on failure tries again after `backoffMs`, doubled up to the maximum. */
  async #dial(peer: PersistentPeer, backoffMs: number): Promise<void> {
    if (this.#stopped || this.#peers.has(peer.nodeId)) return;
    const address = `${peer.host}:${peer.port}`;
    const maxBackoff = this.#options.redialMaxMs ?? 10_000;
    const retry = (): void => this.#schedule(() => void this.#dial(peer, Math.min(backoffMs * 2, maxBackoff)), backoffMs);
    let connection: Connection;
    try {
      connection = await this.#node.dial(tcpMultiaddr(peer.host, peer.port), { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (this.#stopped) return;
      this.#logger.warn(dialFailureText(peer, error), {
        peer: peer.nodeId,
        retryInMs: backoffMs,
        remedy: 'check connectivity and the firewall: the peer must be running and its p2p port reachable from here',
      });
      retry();
      return;
    }
    const actual = nodeIdOfPeer(connection.remotePeer) ?? connection.remotePeer.toString();
    if (actual !== peer.nodeId) {
      const error = new PeerIdMismatchError(peer.nodeId, actual, address);
      this.#logger.error(error.message, { expected: peer.nodeId, actual, address });
      const known = this.#peerOf(connection.remotePeer);
      if (!known) await this.#node.hangUp(connection.remotePeer).catch(() => undefined);
      retry();
      return;
    }
    this.#register(connection, peer.nodeId);
  }

  /** Logs `No peers available` while no peer has been connected for the configured time. */
  #watchNoPeers(): void {
    const period = this.#options.noPeersWarnMs ?? 10_000;
    const check = (): void => {
      if (this.#peers.size === 0 && Date.now() - this.#noPeersSince >= period) {
        this.#logger.warn('No peers available', {
          persistentPeers: this.#options.persistentPeers.map((p) => `${p.nodeId}@${p.host}:${p.port}`).join(','),
          remedy: 'check the peers with /net_info, the persistent_peers ids and addresses, and that port 26656 is reachable',
        });
      }
      this.#schedule(check, period);
    };
    this.#schedule(check, period);
  }
}
