/**
 * Importing an Ethereum chain into a fresh node home: the genesis alloc becomes the state the
 * first block runs on, every block executes with its own Ethereum context under the chain's
 * rules (app/imported-chain/execution.ts) and commits at its Ethereum number, and the block store keeps each
 * block under its Ethereum hash with its header, receipts and tx index. The home is then an
 * ordinary read-only home: a node started on it serves and traces the imported chain.
 */
import type { Block as EthBlock } from '@ethereumjs/block';

import { App, type AppOptions, type Genesis } from '../app/index.js';
import type { ImportedChainConfig } from '../app/imported-chain/chain-config.js';
import { ImportedChainConfigError } from '../app/imported-chain/errors.js';
import { executeImportedBlock, type ImportedTxOutcome } from '../app/imported-chain/execution.js';
import { genesisBlockRlp } from '../app/imported-chain/genesis-header.js';
import type { Logger } from '../log/logger.js';
import { EMPTY_BLOOM, ZERO_HASH, txRoot, type Block, type BlockHeader } from '../chain/block.js';
import { BlockStore, type Receipt } from '../chain/block-store.js';
import type { ImportedOrigin } from '../chain/imported-block.js';
import { encodeBodyExtras } from '../chain/ethereum-header.js';
import { buildGenesis, type GenesisFile } from '../chain/genesis-file.js';
import { validatorKey } from '../chain/keys.js';
import { ChainProvider } from '../provider/index.js';
import { bytesHex } from '../util/hex.js';
import { keccak256 } from '../util/keccak.js';

/** What one import needs. */
export interface ChainImportInput {
  /** The home's data directory (empty). */
  dataDir: string;
  /** How to open the home's stores. */
  appOptions: AppOptions;
  /** The home's genesis.json as the node reads it (see importedHomeGenesis). */
  genesis: Genesis;
  /** The chain's rules and alloc. */
  config: ImportedChainConfig;
  /** The chain's blocks from block 1 (readChainFile). */
  blocks: readonly EthBlock[];
  logger: Logger;
  /** Called after each block is committed and stored. */
  onBlock?: (progress: ImportedBlockProgress) => void;
}

/** One imported block. */
export interface ImportedBlockProgress {
  number: number;
  hash: string;
  txs: number;
  gasUsed: bigint;
  /** The node's app hash after the block. */
  appHash: string;
}

/** The outcome of an import. */
export interface ChainImportSummary {
  blocks: number;
  txs: number;
  finalHeight: number;
  genesisHash: string;
  headHash: string;
  ms: number;
}

/** The empty-trie root, the receipts root of a block without transactions. */
const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex');
/** Imported blocks carry no validator signature: their seal is the Ethereum header. */
const NO_SIGNATURE = new Uint8Array(64);

/**
 * The home's genesis.json for an imported chain: its chain id and time, the alloc's balances
 * (informational: the state comes from the alloc itself) and a validator whose key is not
 * kept, so no node of this home ever produces a block on top of the imported chain.
 */
export function importedHomeGenesis(config: ImportedChainConfig): GenesisFile {
  const evmChainId = Number(config.chainId);
  if (!Number.isSafeInteger(evmChainId) || evmChainId <= 0) {
    throw new ImportedChainConfigError(`chain id ${config.chainId} does not fit the node's EVM chain id (a positive integer below 2^53)`);
  }
  return buildGenesis({
    chainId: `eth-${config.chainId}`,
    evmChainId,
    time: new Date(Number(config.genesisTimestamp) * 1000),
    validators: [{ key: validatorKey(), power: 1, name: 'imported-chain' }],
    accounts: [...config.alloc].filter(([, a]) => a.balance > 0n).map(([address, a]) => ({ address: `0x${address}`, balance: a.balance })),
  });
}

function receiptOf(tx: ImportedTxOutcome): Receipt {
  return {
    status: tx.status,
    txType: tx.type,
    from: tx.from,
    to: tx.to ?? null,
    contractAddress: tx.contractAddress ?? null,
    gasUsed: tx.gasUsed,
    cumulativeGasUsed: tx.cumulativeGasUsed,
    effectiveGasPrice: tx.effectiveGasPrice,
    logs: tx.logs,
  };
}

/** The node's header for an imported block: its Ethereum fields, and the app hash before it. */
function headerOf(config: ImportedChainConfig, block: EthBlock, appHashBefore: Uint8Array, rawTxs: readonly Uint8Array[]): BlockHeader {
  const h = block.header;
  return {
    chainId: config.chainId,
    height: Number(h.number),
    timeMs: Number(h.timestamp) * 1000,
    proposer: h.coinbase.bytes,
    lastBlockHash: h.parentHash,
    appHash: appHashBefore,
    txRoot: txRoot(rawTxs),
    receiptsRoot: h.receiptTrie,
    gasUsed: h.gasUsed,
    gasLimit: h.gasLimit,
    baseFee: h.baseFeePerGas ?? 0n,
    logsBloom: h.logsBloom,
  };
}

/** The stored genesis block (height 0): found under the Ethereum genesis hash, never traced. */
function genesisRecord(config: ImportedChainConfig): Block {
  return {
    header: {
      chainId: config.chainId,
      height: 0,
      timeMs: Number(config.genesisTimestamp) * 1000,
      proposer: config.genesisCoinbase,
      lastBlockHash: ZERO_HASH,
      appHash: ZERO_HASH,
      txRoot: txRoot([]),
      receiptsRoot: EMPTY_TRIE_ROOT,
      gasUsed: 0n,
      gasLimit: config.genesisGasLimit,
      baseFee: config.genesisBaseFee,
      logsBloom: EMPTY_BLOOM,
    },
    txs: [],
    signature: NO_SIGNATURE,
  };
}

/**
 * The genesis block's Ethereum identity: its rebuilt header and body when the header hashes to
 * the genesis hash block 1 names, else the hash alone (a genesis this node cannot rebuild
 * exactly is still served under its hash, from the genesis file's fields).
 */
async function genesisOrigin(config: ImportedChainConfig, genesisHash: Uint8Array): Promise<ImportedOrigin> {
  const rebuilt = await genesisBlockRlp(config);
  if (!Buffer.from(keccak256(rebuilt.header)).equals(genesisHash)) return { hash: genesisHash, header: new Uint8Array() };
  return { hash: genesisHash, header: rebuilt.header, body: encodeBodyExtras([], rebuilt.hasWithdrawals ? [] : undefined) };
}

/** Executes and stores `input.blocks` into the empty home of `input.dataDir`. */
export async function importChain(input: ChainImportInput): Promise<ChainImportSummary> {
  const started = performance.now();
  const { config, blocks } = input;
  const first = blocks[0];
  if (first === undefined) throw new ImportedChainConfigError('there are no blocks to import');
  const app = await App.open(input.dataDir, input.appOptions, input.genesis, input.logger);
  let store: BlockStore | undefined;
  try {
    store = await BlockStore.open(input.dataDir);
    if (app.height() !== 0 || store.latestHeight() !== undefined) {
      throw new ImportedChainConfigError('the home already holds a chain; import into an empty home');
    }
    await app.initChain(config.genesisChangesets());
    await store.saveImportedChainGenesis(config.source);
    await store.saveBlock(genesisRecord(config), [], [], await genesisOrigin(config, first.header.parentHash));
    const chain = new ChainProvider(app, store);
    let txCount = 0;
    for (const block of blocks) {
      const number = Number(block.header.number);
      const appHashBefore = app.appHash();
      const outcome = await executeImportedBlock(block, chain.state.at('latest').view, (n) => chain.blocks.hashAt(Number(n)));
      const appHash = await app.commitExecutedBlock(number, outcome.changesets);
      const rawTxs = outcome.txs.map((tx) => tx.raw);
      await store.saveBlock(
        { header: headerOf(config, block, appHashBefore, rawTxs), txs: rawTxs, signature: NO_SIGNATURE },
        outcome.txs.map(receiptOf),
        [],
        { hash: outcome.hash, header: block.header.serialize(), body: encodeBodyExtras(block.uncleHeaders.map((u) => u.raw()), block.withdrawals?.map((w) => w.raw())) },
      );
      txCount += outcome.txs.length;
      input.onBlock?.({ number, hash: bytesHex(outcome.hash), txs: outcome.txs.length, gasUsed: block.header.gasUsed, appHash: bytesHex(appHash) });
    }
    const head = blocks[blocks.length - 1]!;
    return {
      blocks: blocks.length,
      txs: txCount,
      finalHeight: Number(head.header.number),
      genesisHash: bytesHex(first.header.parentHash),
      headHash: bytesHex(head.hash()),
      ms: performance.now() - started,
    };
  } finally {
    await store?.close();
    await app.close();
  }
}
