/**
 * What a follower checks of a block before executing it: its place in the chain (height,
 * parent hash, EVM chain id), that its proposer is a genesis validator whose ed25519
 * signature covers the block hash, and that its tx root commits to the transactions it carries.
 */
import { txRoot, verifyBlockSignature, type StoredBlock } from '../chain/block.js';
import { BlockVerificationError } from './errors.js';

/** The fields of a genesis validator entry verification reads. */
interface GenesisValidatorKey {
  address: string;
  pub_key: { value: string };
}

/** The genesis validator set, by upper-hex address, with raw public keys. */
export type ValidatorSet = ReadonlyMap<string, Uint8Array>;

/** The validator set of genesis.json's `validators`. */
export function validatorSetOf(validators: readonly GenesisValidatorKey[]): ValidatorSet {
  return new Map(validators.map((v) => [v.address.replace(/^0x/, '').toUpperCase(), Buffer.from(v.pub_key.value, 'base64')]));
}

/** Where the block must sit: the next height, on top of the stored parent. */
export interface ChainTip {
  height: number;
  /** Hash of block `height` (zero hash before the first block). */
  hash: Uint8Array;
  chainId: bigint;
}

/** Throws BlockVerificationError unless `block` is a validly signed child of `tip`. */
export function verifyBlock(block: StoredBlock, tip: ChainTip, validators: ValidatorSet): void {
  const { header } = block;
  const fail = (reason: string): never => {
    throw new BlockVerificationError(header.height, reason);
  };
  if (header.height !== tip.height + 1) fail(`height ${header.height} does not follow ${tip.height}`);
  if (header.chainId !== tip.chainId) fail(`EVM chain id ${header.chainId} is not this chain's ${tip.chainId}`);
  if (!Buffer.from(header.lastBlockHash).equals(Buffer.from(tip.hash))) {
    fail(`parent hash ${Buffer.from(header.lastBlockHash).toString('hex')} is not block ${tip.height}'s ${Buffer.from(tip.hash).toString('hex')}`);
  }
  const proposer = Buffer.from(header.proposer).toString('hex').toUpperCase();
  const publicKey = validators.get(proposer);
  if (publicKey === undefined) fail(`proposer ${proposer} is not a genesis validator`);
  if (!verifyBlockSignature(block.hash, block.signature, publicKey!)) fail(`the signature is not proposer ${proposer}'s over block hash ${block.hash.toString('hex')}`);
  if (!txRoot(block.txs).equals(Buffer.from(header.txRoot))) fail('the tx root does not match the transactions');
}
