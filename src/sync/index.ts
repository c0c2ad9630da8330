/** Bringing blocks in from elsewhere: chain-file import, block sync from peers, tx gossip. */
export { BlockSync, type BlockSyncDeps, type SyncState } from './block-sync.js';
export { serveBlocks, blocksReply } from './block-server.js';
export { TxGossip, txBatches, type TxGossipOptions } from './tx-gossip.js';
export { verifyBlock, validatorSetOf, type ChainTip, type ValidatorSet } from './verify.js';
export * from './messages.js';
export * from './errors.js';
