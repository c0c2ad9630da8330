/**
 * The base fee an imported Ethereum chain's own latest header implies for the block after it
 * (EIP-1559), which admission of new transactions checks fees against instead of this chain's
 * minimum. An imported chain does not grow, so it is read once.
 */
import { ImportedChainConfig } from '../app/imported-chain/chain-config.js';
import { nextBaseFeeOf } from '../app/imported-chain/header-facts.js';
import type { BlockReader } from '../provider/index.js';

/** The next block's base fee of the imported chain `blocks` hold; undefined for a chain of this node's own. */
export function importedNextBaseFee(blocks: BlockReader): bigint | undefined {
  const genesis = blocks.importedChainGenesis();
  if (genesis === undefined) return undefined;
  const header = blocks.byHeight(blocks.latestHeight())?.imported?.header;
  if (header === undefined || header.length === 0) return ImportedChainConfig.parse(genesis).genesisBaseFee;
  return nextBaseFeeOf(ImportedChainConfig.parse(genesis), header);
}
