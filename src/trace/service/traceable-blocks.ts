/**
 * The blocks a trace can replay: those the block store holds. The provider also serves the
 * genesis state as block 0 under the zero hash; it has no transactions and no parent state,
 * so for tracing it is no block at all.
 */
import { ZERO_HASH } from '../../chain/block.js';
import type { ChainBlock } from '../../chain/imported-block.js';
import type { BlockReader } from '../../provider/index.js';

function stored(block: ChainBlock | undefined): ChainBlock | undefined {
  return block === undefined || ZERO_HASH.equals(block.hash) ? undefined : block;
}

/** Stored blocks by height or hash. */
export class TraceableBlocks {
  constructor(private readonly blocks: BlockReader) {}

  /** The stored block at `height`. */
  byHeight(height: number): ChainBlock | undefined {
    return stored(this.blocks.byHeight(height));
  }

  /** The stored block with `hash`. */
  byHash(hash: Uint8Array): ChainBlock | undefined {
    const block = stored(this.blocks.byHash(hash));
    return block !== undefined && Buffer.from(block.hash).equals(hash) ? block : undefined;
  }
}
