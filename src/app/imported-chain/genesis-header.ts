/**
 * The header of an imported chain's genesis block, rebuilt from its geth genesis file as geth
 * builds it (Genesis.ToBlock): the state root of the alloc, the empty roots of a block without
 * transactions, and the fork-dependent tail (base fee from London, empty withdrawals root from
 * Shanghai, zero blob gas and beacon root from Cancun, the empty requests hash from Prague).
 * The chain file does not carry this header; its hash is checked against the genesis hash
 * block 1 names before it is used.
 */
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, hexToBytes, unpadBytes } from '@ethereumjs/util';
import { createHash } from 'node:crypto';

import { keccak256 } from '../../util/keccak.js';
import type { EthAllocAccount, ImportedChainConfig } from './chain-config.js';

/** keccak256 of the empty trie: the root of no transactions, receipts, withdrawals or storage. */
const EMPTY_TRIE_ROOT = hexToBytes('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
/** keccak256(RLP([])): the uncle hash of a block without uncles. */
const EMPTY_UNCLE_HASH = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
/** EIP-7685's hash of no requests: sha256 of nothing. */
const EMPTY_REQUESTS_HASH = createHash('sha256').digest();
const ZERO_HASH = new Uint8Array(32);
const EMPTY_BLOOM = new Uint8Array(256);
/** geth's base fee of a London genesis that names none (params.InitialBaseFee). */
const INITIAL_BASE_FEE = 1_000_000_000n;

/** The RLP header and body of the genesis block. */
export interface GenesisBlockRlp {
  header: Uint8Array;
  /** From Shanghai the genesis body carries an (empty) withdrawals list. */
  hasWithdrawals: boolean;
}

/** The Ethereum state root of `alloc`: the secure trie of accounts, each with its storage trie's root. */
export async function allocStateRoot(alloc: ReadonlyMap<string, EthAllocAccount>): Promise<Uint8Array> {
  const accounts = await createMPT({ useKeyHashing: true });
  for (const [address, account] of alloc) {
    const storage = await createMPT({ useKeyHashing: true });
    for (const [slot, value] of account.storage) {
      const unpadded = unpadBytes(value);
      if (unpadded.length > 0) await storage.put(slot, RLP.encode(unpadded));
    }
    const body = [bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), storage.root(), keccak256(account.code)];
    await accounts.put(hexToBytes(`0x${address}`), RLP.encode(body));
  }
  return accounts.root();
}

/** The genesis block's header RLP, with the fields geth fills in for the forks active at genesis. */
export async function genesisBlockRlp(config: ImportedChainConfig): Promise<GenesisBlockRlp> {
  const common = config.commonAt(0n, config.genesisTimestamp);
  const fields: Uint8Array[] = [
    ZERO_HASH,
    EMPTY_UNCLE_HASH,
    config.genesisCoinbase,
    await allocStateRoot(config.alloc),
    EMPTY_TRIE_ROOT,
    EMPTY_TRIE_ROOT,
    EMPTY_BLOOM,
    bigIntToUnpaddedBytes(config.genesisDifficulty),
    new Uint8Array(),
    bigIntToUnpaddedBytes(config.genesisGasLimit),
    new Uint8Array(),
    bigIntToUnpaddedBytes(config.genesisTimestamp),
    config.genesisExtraData,
    config.genesisMixHash,
    config.genesisNonce,
  ];
  const hasWithdrawals = common.isActivatedEIP(4895);
  if (common.isActivatedEIP(1559)) fields.push(bigIntToUnpaddedBytes(config.genesisBaseFee > 0n ? config.genesisBaseFee : INITIAL_BASE_FEE));
  if (hasWithdrawals) fields.push(EMPTY_TRIE_ROOT);
  if (common.isActivatedEIP(4844)) fields.push(new Uint8Array(), new Uint8Array(), ZERO_HASH);
  if (common.isActivatedEIP(7685)) fields.push(EMPTY_REQUESTS_HASH);
  return { header: RLP.encode(fields), hasWithdrawals };
}
