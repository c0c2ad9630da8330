/**
 * How a stored block re-executes: with the chain's own rules, or — imported from an Ethereum
 * chain — with its Ethereum header and that chain's rules (block 1 starts from the genesis
 * alloc, which the versioned stores cannot hold at version 0).
 */
import type { AppReader, BlockHeaderInput } from '../../app/index.js';
import { ImportedChainConfig } from '../../app/imported-chain/chain-config.js';
import { importedExecutionContext } from '../../app/imported-chain/execution.js';
import type { ExecutionContext } from '../../app/execution-context.js';
import type { StoredBlock } from '../../chain/block.js';
import type { ChainBlock } from '../../chain/imported-block.js';
import type { BlockReader } from '../../provider/index.js';
import { GenesisNotTraceableError, ImportedBlockUnsupportedError, ImportedGenesisMissingError } from '../service-errors.js';

/** The header fields of a stored block the chain's own execution reads. */
export function headerInput(block: StoredBlock): BlockHeaderInput {
  const h = block.header;
  return { height: h.height, timeMs: h.timeMs, proposer: h.proposer, baseFee: h.baseFee, gasLimit: h.gasLimit };
}

/**
 * Refuses an imported Ethereum block for `method`: debug_traceCall and debug_traceStateAccess
 * re-execute with this chain's own rules, and would answer from the wrong execution.
 */
export function requireOwnBlock(block: ChainBlock, method: string): void {
  if (block.imported !== undefined) throw new ImportedBlockUnsupportedError(method, block.header.height);
}

/** Execution contexts of stored blocks. */
export class ExecutionContexts {
  /** The rules of an imported Ethereum chain, read from the block store once. */
  #importedChain: ImportedChainConfig | undefined;

  constructor(
    private readonly app: AppReader,
    private readonly blocks: BlockReader,
  ) {}

  /** How to re-execute `block`. */
  of(block: ChainBlock): ExecutionContext {
    if (block.imported === undefined) return this.app.ownExecutionContext(headerInput(block), block.hash);
    if (block.header.height === 0) throw new GenesisNotTraceableError();
    const chain = this.#imported();
    const height = block.header.height;
    const parentState = height === 1 ? chain.genesisView() : undefined;
    return importedExecutionContext(chain, block.imported.header, height, (n) => this.blocks.hashAt(Number(n)), parentState);
  }

  #imported(): ImportedChainConfig {
    if (this.#importedChain === undefined) {
      const genesis = this.blocks.importedChainGenesis();
      if (genesis === undefined) throw new ImportedGenesisMissingError();
      this.#importedChain = ImportedChainConfig.parse(genesis);
    }
    return this.#importedChain;
  }
}
