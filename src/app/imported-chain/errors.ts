/** Typed errors of importing an Ethereum chain. */
import { AppError } from '../errors.js';

/** The geth genesis file cannot be used; the message names the field. */
export class ImportedChainConfigError extends AppError {}

/** The chain file is not a sequence of RLP blocks; the message names the block. */
export class ChainFileError extends AppError {}

/** Executing an imported block failed or disagreed with its header; the message names the block. */
export class ImportedBlockError extends AppError {
  constructor(
    readonly blockNumber: bigint,
    readonly blockHash: string,
    problem: string,
  ) {
    super(`block ${blockNumber} (${blockHash}): ${problem}`);
  }
}
