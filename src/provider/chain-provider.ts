/**
 * The read side of a node, in the shape of reth's provider: block names resolved to heights
 * once, state at a height, and the chain's blocks. The eth_ and debug_ backends, the chain
 * importer and block sync read through it.
 */
import type { AppReader } from '../app/index.js';
import type { BlockStore } from '../chain/block-store.js';
import type { ChainBlock } from '../chain/imported-block.js';
import { resolveHeight, type BlockId, type ChainHeights, type TagHeights } from './block-id.js';
import { BlockReader } from './block-reader.js';
import { BlockNotFoundError } from './errors.js';
import { StateProvider, type StateAt } from './state-provider.js';

/** Blocks and state of one node home. */
export class ChainProvider {
  readonly state: StateProvider;
  readonly blocks: BlockReader;

  constructor(app: AppReader, store: BlockStore) {
    this.state = new StateProvider(app);
    this.blocks = new BlockReader(store, app.genesis, () => app.appHash());
  }

  /** The heights block tags resolve to. */
  heights(): ChainHeights {
    return { ...this.#tagHeights(), earliestState: this.state.earliestHeight() };
  }

  /** The height `id` names. Throws BlockNotFoundError. */
  heightOf(id: BlockId): number {
    // Every state read resolves a name; the tags need no store query beyond the head.
    return resolveHeight(id, this.#tagHeights(), (hash) => this.blocks.heightOfHash(hash));
  }

  #tagHeights(): TagHeights {
    const latest = this.blocks.latestHeight();
    return { latest, earliest: 0, safe: latest, finalized: latest };
  }

  /** The block `id` names. Throws BlockNotFoundError. */
  block(id: BlockId): ChainBlock {
    const block = this.blocks.byHeight(this.heightOf(id));
    if (block === undefined) throw new BlockNotFoundError(id.kind === 'hash' ? 'hash' : 'number');
    return block;
  }

  /** The state after the block `id` names. Throws BlockNotFoundError or HeightUnavailableError. */
  stateAt(id: BlockId): StateAt {
    return this.state.at(this.heightOf(id));
  }
}
