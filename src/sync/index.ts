/** Bringing blocks and state in from elsewhere: chain-file import, block sync and state sync from peers, tx gossip. */
export { BlockSync, type BlockSyncDeps, type SyncState } from './block-sync.js';
export { serveBlocks, blocksReply } from './block-server.js';
export { TxGossip, txBatches, type TxGossipOptions } from './tx-gossip.js';
export { verifyBlock, validatorSetOf, type ChainTip, type ValidatorSet } from './verify.js';
export * from './messages.js';
export * from './errors.js';
export { serveSnapshots } from './snapshot-server.js';
export * from './snapshot-messages.js';
export { stateSync, type StateSyncDeps, type StateSyncResult, type SnapshotBlockHandler } from './state-sync.js';
export { StateSyncError, TrustedHeaderError } from './state-sync-errors.js';
export { PeerChunkSource, type PeerChunkSourceOptions } from './state-sync-chunks.js';
export { fetchTrustedHeader, rpcBaseUrl, type TrustSettings, type TrustedHeader } from './state-sync-trust.js';
