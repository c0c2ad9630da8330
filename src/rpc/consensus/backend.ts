/** What the consensus RPC (port 26657) reads from the node, as plain typed data. */

/** This node's (or a peer's) identity as CometBFT reports it. */
export interface NodeIdentity {
  /** Node id: hex of the first 20 bytes of sha256(node public key). */
  readonly id: string;
  readonly listenAddr: string;
  /** The chain id string (`network`). */
  readonly network: string;
  readonly version: string;
  readonly moniker: string;
  /** The consensus RPC address, reported under `other.rpc_address`. */
  readonly rpcAddress: string;
}

/** Heights, hashes and times of the newest and oldest stored blocks. */
export interface SyncInfo {
  readonly latestBlockHash: Uint8Array;
  readonly latestAppHash: Uint8Array;
  readonly latestBlockHeight: number;
  /** Milliseconds since the epoch. */
  readonly latestBlockTimeMs: number;
  readonly earliestBlockHash: Uint8Array;
  readonly earliestAppHash: Uint8Array;
  readonly earliestBlockHeight: number;
  readonly earliestBlockTimeMs: number;
  readonly catchingUp: boolean;
  /** Why this node stopped applying blocks (an app-hash mismatch), when it has. */
  readonly halted?: string;
}

/** The local validator, when this node has a key. */
export interface ValidatorInfo {
  /** 20-byte address. */
  readonly address: Uint8Array;
  /** 32-byte ed25519 public key. */
  readonly pubKey: Uint8Array;
  readonly votingPower: bigint;
}

/** A connected peer. */
export interface PeerInfo {
  readonly node: NodeIdentity;
  readonly isOutbound: boolean;
  readonly remoteIp: string;
  /** The peer's latest reported height. */
  readonly height: number;
}

/** A block as /block reports it. */
export interface ConsensusBlock {
  readonly hash: Uint8Array;
  readonly chainId: string;
  readonly height: number;
  readonly timeMs: number;
  readonly lastBlockHash: Uint8Array;
  readonly appHash: Uint8Array;
  readonly dataHash: Uint8Array;
  readonly proposerAddress: Uint8Array;
  readonly txs: readonly Uint8Array[];
}

/** The proposer's signature over a block, as /commit reports it. */
export interface ConsensusCommit {
  readonly block: ConsensusBlock;
  readonly validatorAddress: Uint8Array;
  readonly signature: Uint8Array;
}

/** Everything the consensus routes need. */
export interface ConsensusBackend {
  nodeInfo(): NodeIdentity;
  syncInfo(): SyncInfo;
  validatorInfo(): ValidatorInfo | null;
  peers(): readonly PeerInfo[];
  /** A stored block, or null. */
  block(height: number): ConsensusBlock | null | Promise<ConsensusBlock | null>;
  /** A stored block's commit, or null. */
  commit(height: number): ConsensusCommit | null | Promise<ConsensusCommit | null>;
}
