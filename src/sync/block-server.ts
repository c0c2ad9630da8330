/**
 * The serving side of block sync, which every node runs: its status (chain id and height)
 * and ranges of its committed blocks, each reply bounded by `max-packet-msg-payload-size`.
 */
import { encodeBlock } from '../chain/block.js';
import type { BlockStore } from '../chain/block-store.js';
import type { Logger } from '../log/logger.js';
import type { PeerHost } from '../p2p/index.js';
import { BLOCKS_PROTOCOL, STATUS_PROTOCOL, parseBlocksRequest, type BlocksReply, type StatusMessage } from './messages.js';

// Room for the reply's map and each byte string's msgpack header.
const REPLY_OVERHEAD = 64;
const PER_BLOCK_OVERHEAD = 8;

/** The encoded blocks `from`..`to` that fit in `limit` bytes of reply, from `from` on. */
export function blocksReply(store: BlockStore, from: number, to: number, limit: number): { reply: BlocksReply; tooLarge: boolean } {
  const blocks: Uint8Array[] = [];
  let size = REPLY_OVERHEAD;
  for (let height = from; height <= to; height++) {
    const block = store.blockByHeight(height);
    if (!block) break;
    const encoded = encodeBlock({ header: block.header, txs: block.txs, signature: block.signature });
    size += encoded.length + PER_BLOCK_OVERHEAD;
    if (size > limit) return { reply: { blocks }, tooLarge: blocks.length === 0 };
    blocks.push(encoded);
  }
  return { reply: { blocks }, tooLarge: false };
}

/** Serves `/strata/status/1` and `/strata/blocks/1` from `store`. */
export async function serveBlocks(host: PeerHost, store: BlockStore, chainId: string, limit: number, logger: Logger): Promise<void> {
  await host.handle(STATUS_PROTOCOL, (): StatusMessage => ({ chainId, height: store.latestHeight() ?? 0 }));
  await host.handle(BLOCKS_PROTOCOL, (message, peer) => {
    const { from, to } = parseBlocksRequest(message);
    const { reply, tooLarge } = blocksReply(store, from, to, limit);
    if (tooLarge) {
      logger.error('a block is larger than max-packet-msg-payload-size and cannot be sent to peers; raise it (1024000 suits large blocks) on every node', {
        height: from,
        peer: peer.nodeId,
        limit,
      });
    }
    return reply;
  });
}
