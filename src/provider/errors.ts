/** Typed errors of the provider layer: a block that is not there, a state that is not kept. */

/** Base class of the provider's errors. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A block number or hash that names no block this node has (geth's wording). */
export class BlockNotFoundError extends ProviderError {
  /** How the block was named. */
  readonly by: 'number' | 'hash';

  constructor(by: 'number' | 'hash') {
    super(by === 'hash' ? 'header for hash not found' : 'header not found');
    this.by = by;
  }
}

function messageOf(requested: number, reason: UnavailableReason, bound: number): string {
  switch (reason) {
    case 'pruned':
      return (
        `state at block ${requested} is not available: the earliest retained block is ${bound} ` +
        `(older state was pruned, see ss-keep-recent); query block ${bound} or later, or use an archive node`
      );
    case 'future':
      return `state at block ${requested} is not available yet: the latest committed block is ${bound}`;
    default:
      return `state at block ${requested} is still being written to the state store (applied up to block ${bound}); retry in a moment`;
  }
}

/** Why a height's state cannot be read. */
export type UnavailableReason = 'pruned' | 'future' | 'applying';

/**
 * The state at a height cannot be read: it was pruned (`bound` is the earliest retained
 * height), it is not committed yet (`bound` is the latest committed height), or the state
 * store is still applying it (`bound` is the newest height it has applied).
 */
export class HeightUnavailableError extends ProviderError {
  readonly requested: number;
  readonly reason: UnavailableReason;
  /** The earliest retained height (pruned) or the latest committed one (future). */
  readonly bound: number;

  constructor(requested: number, reason: UnavailableReason, bound: number) {
    super(messageOf(requested, reason, bound));
    this.requested = requested;
    this.reason = reason;
    this.bound = bound;
  }
}
