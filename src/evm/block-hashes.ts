/**
 * BLOCKHASH for the EVM. @ethereumjs asks a "blockchain" for the ancestor block and hashes
 * it; a node has the hashes in its block store, so the EVM gets a blockchain that answers
 * from a lookup (the EVM itself limits the window to the last 256 blocks).
 */
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';

/** The hash of the block at `height`, or undefined when the chain has none there. */
export type BlockHashLookup = (height: number) => Uint8Array | undefined;

const ZERO_HASH = new Uint8Array(32);

/** A lookup without a block store: every ancestor hashes to zero. */
export const NO_BLOCK_HASHES: BlockHashLookup = () => undefined;

/**
 * The blockchain the EVM reads ancestors from. A height the lookup does not know answers
 * the zero hash (genesis, served to clients with the zero hash, is one) — unless `strict`,
 * where a missing ancestor is an error (an imported chain has every one).
 */
export function blockHashChain(lookup: BlockHashLookup, strict = false): EVMMockBlockchainInterface {
  const chain: EVMMockBlockchainInterface = {
    getBlock: async (height: number) => {
      const hash = lookup(height);
      if (hash === undefined && strict) throw new Error(`block ${height} is not part of the chain`);
      return { hash: () => hash ?? ZERO_HASH };
    },
    putBlock: async () => undefined,
    shallowCopy: () => chain,
  };
  return chain;
}
