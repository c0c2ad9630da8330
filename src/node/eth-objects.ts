/**
 * The eth_ view of what only some transactions and blocks carry: the blob (EIP-4844) and
 * set-code (EIP-7702) fields of a transaction, and the fields of a block imported from an
 * Ethereum chain that its own header and body give (not this chain's defaults).
 */
import type { Common } from '@ethereumjs/common';
import { decode as rlpDecode } from '@ethereumjs/rlp';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';

import type { ImportedChainConfig } from '../app/imported-chain/chain-config.js';
import { GAS_PER_BLOB } from '../app/imported-chain/header-facts.js';
import { decodeBodyExtras, decodeEthereumHeader, encodeBodyExtras, ethereumBlockSize } from '../chain/ethereum-header.js';
import type { ChainBlock } from '../chain/imported-block.js';
import { decodeTx } from '../evm/validate.js';
import type { EthAuthorization, EthBlockHeader, EthWithdrawal } from '../rpc/eth/index.js';

const BLOB_TX_TYPE = 3;

/** A mined or pending transaction, decoded with its sender. */
export interface DecodedChainTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  from: Uint8Array;
}

/**
 * Decodes a transaction for display. A blob transaction is never admitted here, but an
 * imported block may hold one (in its canonical form, without blobs): it decodes under the
 * same rules without the admission checks.
 */
export function decodeChainTx(raw: Uint8Array, common: Common): DecodedChainTx {
  if (raw[0] === BLOB_TX_TYPE) {
    const tx = createTxFromRLP(raw, { common });
    return { tx, hash: tx.hash(), from: tx.getSenderAddress().bytes };
  }
  const decoded = decodeTx(raw, common);
  return { tx: decoded.tx, hash: decoded.hash, from: decoded.sender.bytes };
}

/** The blob and set-code fields of `tx` (empty for other types). */
export function typedTxFields(tx: TypedTransaction): {
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  authorizationList?: EthAuthorization[];
} {
  const t = tx as TypedTransaction & {
    maxFeePerBlobGas?: bigint;
    blobVersionedHashes?: PrefixedHexString[];
    authorizationList?: Uint8Array[][];
  };
  if (tx.type === BLOB_TX_TYPE) {
    return { maxFeePerBlobGas: t.maxFeePerBlobGas ?? 0n, blobVersionedHashes: (t.blobVersionedHashes ?? []).map((h) => hexToBytes(h)) };
  }
  if (t.authorizationList !== undefined) {
    return {
      authorizationList: t.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
        chainId: bytesToBigInt(chainId!),
        address: address!,
        nonce: bytesToBigInt(nonce!),
        yParity: bytesToBigInt(yParity!),
        r: bytesToBigInt(r!),
        s: bytesToBigInt(s!),
      })),
    };
  }
  return {};
}

/** The blob gas a raw blob transaction uses: GAS_PER_BLOB per versioned hash (field 10 of its payload). */
export function blobGasOfRaw(raw: Uint8Array): bigint {
  const fields = rlpDecode(raw.subarray(1)) as unknown[];
  const hashes = fields[10];
  return Array.isArray(hashes) ? BigInt(hashes.length) * GAS_PER_BLOB : 0n;
}

/** Header fields of an imported block that differ from this chain's rendering, and its body extras. */
export type ImportedBlockFields = Partial<Omit<EthBlockHeader, 'number' | 'hash' | 'parentHash'>> & {
  uncles?: Uint8Array[];
  withdrawals?: EthWithdrawal[];
};

/**
 * What an imported block's own header and body say. The genesis has the header rebuilt from
 * its genesis file at import (checked against the genesis hash); one imported without it shows
 * what its genesis file gives: difficulty, extra data, nonce, mix hash, and no base fee before London.
 */
export function importedBlockFields(block: ChainBlock, config: () => ImportedChainConfig | undefined): ImportedBlockFields {
  const origin = block.imported;
  if (origin === undefined) return {};
  if (origin.header.length === 0) {
    const chain = config();
    if (chain === undefined) return {};
    return {
      difficulty: chain.genesisDifficulty,
      extraData: chain.genesisExtraData,
      nonce: chain.genesisNonce,
      mixHash: chain.genesisMixHash,
      noBaseFee: !chain.genesisHasBaseFee(),
    };
  }
  const h = decodeEthereumHeader(origin.header);
  const body = origin.body ?? encodeBodyExtras([], undefined);
  const extras = decodeBodyExtras(body);
  return {
    miner: h.coinbase,
    stateRoot: h.stateRoot,
    transactionsRoot: h.transactionsRoot,
    receiptsRoot: h.receiptsRoot,
    logsBloom: h.logsBloom,
    extraData: h.extraData,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    nonce: h.nonce,
    sha3Uncles: h.uncleHash,
    size: BigInt(ethereumBlockSize(origin.header, block.txs, body)),
    uncles: extras.uncles,
    ...(h.baseFeePerGas === undefined ? { noBaseFee: true } : {}),
    ...(h.withdrawalsRoot !== undefined ? { withdrawalsRoot: h.withdrawalsRoot } : {}),
    ...(h.blobGasUsed !== undefined ? { blobGasUsed: h.blobGasUsed } : {}),
    ...(h.excessBlobGas !== undefined ? { excessBlobGas: h.excessBlobGas } : {}),
    ...(h.parentBeaconBlockRoot !== undefined ? { parentBeaconBlockRoot: h.parentBeaconBlockRoot } : {}),
    ...(h.requestsHash !== undefined ? { requestsHash: h.requestsHash } : {}),
    ...(extras.withdrawals !== undefined ? { withdrawals: extras.withdrawals } : {}),
  };
}
