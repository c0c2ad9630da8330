/** Typed errors of block sync; each message is what an operator reads in the log. */

/** A peer's message does not have the shape its protocol defines. */
export class SyncMessageError extends Error {
  constructor(protocol: string, reason: string) {
    super(`malformed ${protocol} message: ${reason}`);
    this.name = 'SyncMessageError';
  }
}

/** A block from a peer failed verification (height, parent, proposer, signature, tx root). */
export class BlockVerificationError extends Error {
  constructor(
    readonly height: number,
    reason: string,
  ) {
    super(`block ${height} failed verification: ${reason}`);
    this.name = 'BlockVerificationError';
  }
}

/**
 * The app hash a block's header carries is not the one this node computed for the block
 * before it: this node's state differs from the chain's, and applying further blocks would
 * build on it. As in CometBFT, "expected" is this node's state and "got" the header's.
 */
export class AppHashMismatchError extends Error {
  constructor(
    readonly height: number,
    readonly blockId: string,
    readonly expected: string,
    readonly got: string,
  ) {
    super(
      `wrong Block.Header.AppHash. Expected ${expected}, got ${got} (block ${height}, block id ${blockId}; the state after block ${height - 1} ` +
        'differs from the chain: stop the node, run `stratad rollback`, and restart; restore a trusted snapshot if that fails)',
    );
    this.name = 'AppHashMismatchError';
  }
}

/** Executing a verified block gave results (receipts, gas, bloom, skipped txs) its header does not carry. */
export class BlockResultsMismatchError extends Error {
  constructor(
    readonly height: number,
    reason: string,
  ) {
    super(`executing block ${height} gave results its header does not carry: ${reason}; stop the node and run \`stratad rollback\``);
    this.name = 'BlockResultsMismatchError';
  }
}
