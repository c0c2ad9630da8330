/** The chain rules the node executes with: Prague, the chain's EVM chain id, native crypto. */
import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { nativeCrypto } from './crypto.js';

/** A Common for `evmChainId` with Prague rules and native keccak / ecrecover. */
export function createChainCommon(evmChainId: number | bigint): Common {
  return createCustomCommon({ chainId: Number(evmChainId) }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: nativeCrypto,
  });
}
