/** The consensus RPC backend of a running node: identity, sync info and stored blocks. */
import type { App } from '../app/index.js';
import type { StoredBlock } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import type { ConsensusBackend, ConsensusBlock, ConsensusCommit, NodeIdentity, PeerInfo, SyncInfo, ValidatorInfo } from '../rpc/consensus/index.js';

const EMPTY = new Uint8Array();

/** What the network tells /status, /net_info and /lag_status. */
export interface NodeStatusFacts {
  peers(): readonly PeerInfo[];
  syncState(): { catchingUp: boolean; halted?: string };
}

/** ConsensusBackend over one node's block store and app. */
export class NodeConsensusBackend implements ConsensusBackend {
  #network: NodeStatusFacts | undefined;

  constructor(
    private readonly app: App,
    private readonly store: BlockStore,
    private readonly identity: NodeIdentity,
    private readonly validator: ValidatorInfo | null,
  ) {}

  /** Reports the network's peers and sync state from now on. */
  useNetwork(network: NodeStatusFacts): void {
    this.#network = network;
  }

  nodeInfo(): NodeIdentity {
    return this.identity;
  }

  syncInfo(): SyncInfo {
    const latestHeight = this.store.latestHeight();
    const earliestHeight = this.store.earliestHeight();
    const latest = latestHeight !== undefined ? this.store.blockByHeight(latestHeight) : undefined;
    const earliest = earliestHeight !== undefined ? this.store.blockByHeight(earliestHeight) : undefined;
    const sync = this.#network?.syncState();
    return {
      latestBlockHash: latest?.hash ?? EMPTY,
      // The app hash after the latest block (the next header will carry it).
      latestAppHash: latest ? this.app.appHash() : EMPTY,
      latestBlockHeight: latestHeight ?? 0,
      latestBlockTimeMs: latest?.header.timeMs ?? 0,
      earliestBlockHash: earliest?.hash ?? EMPTY,
      earliestAppHash: earliest?.header.appHash ?? EMPTY,
      earliestBlockHeight: earliestHeight ?? 0,
      earliestBlockTimeMs: earliest?.header.timeMs ?? 0,
      catchingUp: sync?.catchingUp ?? false,
      ...(sync?.halted !== undefined ? { halted: sync.halted } : {}),
    };
  }

  validatorInfo(): ValidatorInfo | null {
    return this.validator;
  }

  peers(): readonly PeerInfo[] {
    return this.#network?.peers() ?? [];
  }

  #block(block: StoredBlock | undefined): ConsensusBlock | null {
    if (!block) return null;
    return {
      hash: block.hash,
      chainId: this.app.genesis.chain_id,
      height: block.header.height,
      timeMs: block.header.timeMs,
      lastBlockHash: block.header.lastBlockHash,
      appHash: block.header.appHash,
      dataHash: block.header.txRoot,
      proposerAddress: block.header.proposer,
      txs: block.txs,
    };
  }

  block(height: number): ConsensusBlock | null {
    return this.#block(this.store.blockByHeight(height));
  }

  commit(height: number): ConsensusCommit | null {
    const block = this.#block(this.store.blockByHeight(height));
    const commit = this.store.commit(height);
    const signature = commit?.signatures[0];
    if (!block || !signature) return null;
    return { block, validatorAddress: signature.validatorAddress, signature: signature.signature };
  }
}
