/**
 * Facts an imported block's header implies under its chain's rules, which the header does not
 * carry itself: the blob base fee its blob transactions paid (EIP-4844, with the fork's update
 * fraction) and the base fee the next block would have (EIP-1559).
 */
import { createBlockHeaderFromBytesArray, type BlockHeader, type BlockHeaderBytes } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';

import type { ImportedChainConfig } from './chain-config.js';

function headerOf(config: ImportedChainConfig, headerRlp: Uint8Array): BlockHeader {
  const fields = RLP.decode(headerRlp) as BlockHeaderBytes;
  const uint = (b: Uint8Array | undefined): bigint => (b === undefined || b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`));
  const common = config.commonAt(uint(fields[8]), uint(fields[11]));
  return createBlockHeaderFromBytesArray(fields, { common, skipConsensusFormatValidation: true });
}

/** The blob base fee of the block with header `headerRlp`; undefined before Cancun. */
export function blobGasPriceOf(config: ImportedChainConfig, headerRlp: Uint8Array): bigint | undefined {
  const header = headerOf(config, headerRlp);
  return header.excessBlobGas === undefined ? undefined : header.getBlobGasPrice();
}

/** The base fee of the block after the one with header `headerRlp`; 0 before London. */
export function nextBaseFeeOf(config: ImportedChainConfig, headerRlp: Uint8Array): bigint {
  const header = headerOf(config, headerRlp);
  return header.baseFeePerGas === undefined ? 0n : header.calcNextBaseFee();
}

/** Gas one blob costs (EIP-4844's GAS_PER_BLOB). */
export const GAS_PER_BLOB = 131_072n;
