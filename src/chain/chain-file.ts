/**
 * Reading an Ethereum chain file (`chain.rlp`, as geth's `export` writes it): blocks as
 * concatenated RLP lists, each decoded under the chain's rules at its number and time, and
 * checked to form one chain from block 1 (consecutive numbers, each naming its parent's hash).
 */
import type { Block, BlockBytes } from '@ethereumjs/block';
import { decode as rlpDecode } from '@ethereumjs/rlp';

import type { ImportedChainConfig } from '../app/imported-chain/chain-config.js';
import { ChainFileError } from '../app/imported-chain/errors.js';
import { decodeChainFileBlock } from '../app/imported-chain/execution.js';
import { bytesHex } from '../util/hex.js';

/** The blocks of a chain file, in order, starting at block 1. */
export function readChainFile(bytes: Uint8Array, config: ImportedChainConfig): Block[] {
  const blocks: Block[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const position = blocks.length + 1;
    let item: { data: unknown; remainder: Uint8Array };
    try {
      item = rlpDecode(bytes.subarray(offset), true) as { data: unknown; remainder: Uint8Array };
    } catch (error) {
      throw new ChainFileError(`chain file item ${position} at byte ${offset} is not valid RLP: ${(error as Error).message}`);
    }
    if (!Array.isArray(item.data)) throw new ChainFileError(`chain file item ${position} at byte ${offset} is not an RLP list (a block)`);
    let block: Block;
    try {
      block = decodeChainFileBlock(config, item.data as BlockBytes);
    } catch (error) {
      throw new ChainFileError(`chain file item ${position} at byte ${offset} is not a block of this chain: ${(error as Error).message}`);
    }
    const previous = blocks[blocks.length - 1];
    const expected = previous ? previous.header.number + 1n : 1n;
    if (block.header.number !== expected) {
      throw new ChainFileError(`chain file item ${position} is block ${block.header.number}, expected block ${expected}; the file must hold the chain from block 1 in order`);
    }
    if (previous && !Buffer.from(block.header.parentHash).equals(previous.hash())) {
      throw new ChainFileError(`block ${block.header.number} names parent ${bytesHex(block.header.parentHash)}, but block ${previous.header.number} is ${bytesHex(previous.hash())}`);
    }
    blocks.push(block);
    offset = bytes.length - item.remainder.length;
  }
  if (blocks.length === 0) throw new ChainFileError('the chain file holds no blocks');
  return blocks;
}
