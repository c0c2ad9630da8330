/**
 * How a request names a block — a number, a tag or a hash — and the one place such a name is
 * turned into a height.
 */
import { BlockNotFoundError } from './errors.js';

/** The block tags of the Ethereum JSON-RPC. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/** A block named by number or tag. */
export type BlockNumberOrTag = { readonly kind: 'tag'; readonly tag: BlockTag } | { readonly kind: 'number'; readonly number: number };

/** A block named by number, tag or hash (EIP-1898). */
export type BlockId = BlockNumberOrTag | { readonly kind: 'hash'; readonly hash: Uint8Array; readonly requireCanonical?: boolean };

/** The heights block tags resolve to. */
export interface ChainHeights {
  /** Newest committed block (`latest`, and `pending`, which this node has no separate view of). */
  readonly latest: number;
  /** Oldest block served (`earliest`); 0, the genesis state, until blocks are pruned. */
  readonly earliest: number;
  /** `safe`; with instant finality equal to latest. */
  readonly safe: number;
  /** `finalized`; with instant finality equal to latest. */
  readonly finalized: number;
  /** Oldest height whose state is still retained (0 while the genesis state is). */
  readonly earliestState: number;
}

/** The heights a block tag can name. */
export type TagHeights = Pick<ChainHeights, 'latest' | 'earliest' | 'safe' | 'finalized'>;

/** The block `id` names at `heights`; a hash is looked up with `heightOfHash`. Throws BlockNotFoundError. */
export function resolveHeight(id: BlockId, heights: TagHeights, heightOfHash: (hash: Uint8Array) => number | undefined): number {
  if (id.kind === 'hash') {
    const height = heightOfHash(id.hash);
    if (height === undefined) throw new BlockNotFoundError('hash');
    return height;
  }
  const height = tagHeight(id, heights);
  if (height > heights.latest) throw new BlockNotFoundError('number');
  return height;
}

/** The height a number or tag names, which may lie past the head (a range end, a future block). */
export function tagHeight(id: BlockNumberOrTag, heights: TagHeights): number {
  if (id.kind === 'number') return id.number;
  switch (id.tag) {
    case 'earliest':
      return heights.earliest;
    case 'safe':
      return heights.safe;
    case 'finalized':
      return heights.finalized;
    default:
      return heights.latest;
  }
}
