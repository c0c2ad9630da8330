/**
 * A node's network: the peer host on `[p2p] laddr` with the node key, block and snapshot
 * serving, block sync (following the validator unless this node is it), announcements of committed blocks
 * and transaction gossip; and the peer and sync facts the consensus RPC reports.
 */
import type { App } from '../app/index.js';
import type { StoredBlock } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import type { NodeKey } from '../chain/keys.js';
import type { Mempool } from '../chain/mempool.js';
import type { LoadedConfig } from '../config/index.js';
import type { Logger } from '../log/logger.js';
import { PeerHost } from '../p2p/index.js';
import type { PeerInfo } from '../rpc/consensus/index.js';
import { BlockSync, TxGossip, serveBlocks, serveSnapshots, validatorSetOf, type SyncState } from '../sync/index.js';
import type { NodeStatusFacts } from './consensus-backend.js';

/** What the network needs from the node. */
export interface NetworkDeps {
  config: LoadedConfig;
  app: App;
  store: BlockStore;
  mempool: Mempool;
  nodeKey: NodeKey;
  /** A validator produces blocks; every other node follows its peers. */
  isValidator: boolean;
  /** The proposal log's file, which a follower also writes before executing a block. */
  proposalPath: string;
  /** data/snapshots/, whose snapshots are offered to peers. */
  snapshotsDir: string;
  /** Replaces `[p2p] laddr`'s port (0 picks one). */
  port?: number;
  /** Called after each block applied from peers. */
  onApplied: (block: StoredBlock) => void;
  /** Called once when block sync stops for good (e.g. an app-hash mismatch). */
  onHalt?: (error: Error) => void;
  logger: Logger;
}

/** The running network of one node. */
export class NodeNetwork implements NodeStatusFacts {
  private constructor(
    readonly host: PeerHost,
    readonly sync: BlockSync,
    readonly gossip: TxGossip,
    private readonly deps: NetworkDeps,
  ) {}

  /** Starts listening, serving, dialling the persistent peers and (on a follower) syncing. */
  static async start(deps: NetworkDeps): Promise<NodeNetwork> {
    const { config, app, store, mempool, logger } = deps;
    const p2p = config.node.p2p;
    const limit = p2p.maxPacketMsgPayloadSize;
    const log = logger.child({ module: 'p2p' });
    const host = await PeerHost.start({
      seed: deps.nodeKey.seed,
      listen: { host: p2p.laddr.host, port: deps.port ?? p2p.laddr.port },
      persistentPeers: config.node.persistentPeers,
      maxMessageBytes: limit,
      logger: log,
    });
    try {
      await serveBlocks(host, store, app.genesis.chain_id, limit, log);
      await serveSnapshots(host, deps.snapshotsDir, log);
      const sync = new BlockSync({
        app,
        store,
        mempool,
        host,
        logger: logger.child({ module: 'blocksync' }),
        validators: validatorSetOf(app.genesis.validators),
        chainId: app.genesis.chain_id,
        proposalPath: deps.proposalPath,
        follow: !deps.isValidator,
        expectPeers: config.node.persistentPeers.length > 0,
        onApplied: (block) => {
          deps.onApplied(block);
          sync.announce(block.header.height);
        },
        ...(deps.onHalt ? { onHalt: deps.onHalt } : {}),
      });
      await sync.start();
      const gossip = new TxGossip(host, mempool, { maxMessageBytes: limit, forward: !deps.isValidator, logger: log });
      await gossip.start();
      if (!deps.isValidator && config.node.persistentPeers.length === 0) {
        logger.warn('this node is not a validator and persistent_peers is empty: it will not receive blocks until a peer dials it');
      }
      logger.info('p2p listening', { nodeId: host.nodeId, port: host.port, persistentPeers: config.node.persistentPeers.length, follower: !deps.isValidator });
      return new NodeNetwork(host, sync, gossip, deps);
    } catch (error) {
      await host.stop();
      throw error;
    }
  }

  /** The port the peer host listens on. */
  get port(): number {
    return this.host.port;
  }

  /** Tells peers about a block this node produced. */
  announce(height: number): void {
    this.sync.announce(height);
  }

  /** Catching up, best peer height, halt reason. */
  syncState(): SyncState {
    return this.sync.state();
  }

  /** The connected peers as /net_info reports them. */
  peers(): PeerInfo[] {
    const { app } = this.deps;
    return this.host.peers().map((peer) => ({
      node: {
        id: peer.nodeId,
        listenAddr: `tcp://${peer.address}`,
        network: app.genesis.chain_id,
        version: '',
        moniker: '',
        rpcAddress: '',
      },
      isOutbound: peer.direction === 'outbound',
      remoteIp: peer.remoteIp,
      height: this.sync.peerHeight(peer.nodeId) ?? 0,
    }));
  }

  /** Stops syncing and gossip, then the host. */
  async stop(): Promise<void> {
    this.gossip.stop();
    await this.sync.stop();
    await this.host.stop();
  }
}
