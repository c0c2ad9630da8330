/**
 * BlockStore: blocks, the tx index, receipts, logs and commit signatures in one plain KV
 * store (`data/blockstore`). A block and everything derived from it is saved in one synced,
 * atomic write, so a crash never leaves a block without its receipts or index entries.
 *
 * Layout (heights are 8-byte big-endian so keys sort by height):
 *   0x00 'l'          → latest height         0x00 'e'        → earliest height
 *   0x01 height       → block RLP             0x02 blockHash  → height
 *   0x03 txHash       → height ‖ index (u32)  0x04 txHash     → receipt RLP
 *   0x05 height       → the block's log record 0x06 height    → the block's logs bloom
 *   0x07 height       → commit RLP           0x00 'c'        → imported chain's genesis file
 * A block imported from an Ethereum chain is stored under its Ethereum hash, its record
 * carrying the Ethereum header too (imported-block.ts).
 * Logs and blooms are written only for blocks that have logs, so a log query walks the
 * bloom keys of the range (skipping log-free blocks entirely) and reads, in one batch, only
 * the log records of blocks whose bloom may match. A log record carries the block hash, time
 * and the hashes of the transactions that logged, so a query never decodes a block or hashes
 * a transaction (records written before it did are read through their block, as then).
 */
import { decode as rlpDecode } from '@ethereumjs/rlp';
import { join } from 'node:path';
import {
  BlockFormatError,
  blockHash,
  bloomFilterMatcher,
  decodeBlock,
  encodeBlock,
  logsBloom,
  txHash,
  txRoot,
  type Block,
  type Log,
  type StoredBlock,
} from './block.js';
import { readUint64Be, uint64Be } from './hash.js';
import { decodeImportedBlock, encodeImportedBlock, isImportedRecord, type ChainBlock, type ImportedOrigin } from './imported-block.js';
import { PackedKvOps, PlainKv, type PlainKvOp, type PlainKvOptions } from '../store/index.js';
import { encodeFlatListInto, encodeRlp } from '../util/rlp.js';
import { LRUCache } from 'lru-cache';
import { withFields } from '../util/objects.js';

/** Outcome of one transaction, as the executor reports it. */
export interface Receipt {
  /** 1 = success, 0 = reverted or failed. */
  status: 0 | 1;
  /** EIP-2718 type (0 legacy, 1 access list, 2 dynamic fee, …). */
  txType: number;
  from: Uint8Array;
  /** Recipient; null for a contract creation. */
  to: Uint8Array | null;
  /** Created contract; null unless this was a successful creation. */
  contractAddress: Uint8Array | null;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  logs: readonly Log[];
}

/** A log with its position in the chain, as eth_getLogs and receipts return it. */
export interface IndexedLog extends Log {
  blockHeight: number;
  blockHash: Buffer;
  /** Time of the block, ms since the epoch (RPC shows it as `blockTimestamp`). */
  blockTimeMs: number;
  txHash: Buffer;
  txIndex: number;
  /** Index of the log within its block. */
  logIndex: number;
}

/** A stored receipt with its position in the chain. */
export interface StoredReceipt extends Omit<Receipt, 'logs'> {
  txHash: Buffer;
  blockHeight: number;
  blockHash: Buffer;
  /** Time of the block, ms since the epoch. */
  blockTimeMs: number;
  txIndex: number;
  logs: IndexedLog[];
  /** The bloom of this receipt's logs. */
  logsBloom: Buffer;
}

/** Where a transaction sits in the chain. */
export interface TxLocation {
  height: number;
  index: number;
  rawTx: Uint8Array;
}

/** One validator's signature of a block, as /commit reports it. */
export interface CommitSignature {
  /** 20-byte validator address. */
  validatorAddress: Uint8Array;
  timestampMs: number;
  /** 64-byte ed25519 signature of the block hash. */
  signature: Uint8Array;
}

/** The signatures that committed a block. */
export interface Commit {
  height: number;
  blockHash: Buffer;
  signatures: CommitSignature[];
}

/** An eth_getLogs filter over a height range (inclusive). */
export interface LogFilter {
  fromBlock: number;
  toBlock: number;
  /** Any of these addresses; empty = any. */
  addresses?: readonly Uint8Array[];
  /** Per position, any of the topics; null or empty = any. */
  topics?: ReadonlyArray<readonly Uint8Array[] | null>;
}

/** A block was refused or the store's data is inconsistent; the message says why. */
export class BlockStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockStoreError';
  }
}

const META_LATEST = Buffer.from([0x00, 0x6c]);
const META_EARLIEST = Buffer.from([0x00, 0x65]);
const META_IMPORTED_CHAIN = Buffer.from([0x00, 0x63]);
const P_BLOCK = 0x01;
const P_HASH = 0x02;
const P_TX = 0x03;
const P_RECEIPT = 0x04;
const P_LOGS = 0x05;
const P_BLOOM = 0x06;
const P_COMMIT = 0x07;
const BLOOM_SCAN_BATCH = 1024;

function key(prefix: number, suffix: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(1 + suffix.length);
  out[0] = prefix;
  out.set(suffix, 1);
  return out;
}

/** Block hashes BlockStore.hashAt remembers: the BLOCKHASH window. */
const HASHES_KEPT = 256;
/**
 * Decoded blocks the store remembers, in estimated bytes: a block's receipts, transactions and
 * traces are asked for one after another (an indexer walks a block's receipts one by one), and
 * each lookup would otherwise read and decode the whole block. A full 30M-gas block of
 * transfers (1,428) is estimated at about 350 KB, so this holds five of them; what a larger
 * budget held was older blocks that readers had left (bench:soak: 8 MiB filled within 10
 * minutes and added to the main heap's growth). A block larger than this is decoded every time.
 */
const BLOCK_CACHE_BYTES = 2 * 1024 * 1024;
/**
 * The same for a store another thread borrowed (an execution worker's): a trace worker reads
 * one block at a time (a replay, or a block's transactions traced one after another), and
 * every worker thread would otherwise hold its own BLOCK_CACHE_BYTES.
 */
const ATTACHED_BLOCK_CACHE_BYTES = 1024 * 1024;
/** What a cached block costs besides its record: the decoded header and one byte view per tx. */
const BLOCK_OVERHEAD_BYTES = 2048;
const TX_VIEW_BYTES = 128;
/**
 * Decoded logs the store remembers, in estimated bytes: indexers ask for the same recent ranges
 * again and again, and a block's logs never change while it is stored (a rollback forgets them).
 * Bytes, not a count, because one log's data may be large. 32 MiB holds about 9,700 ERC-20
 * Transfer logs.
 */
const LOG_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * What one cached log costs beyond its bytes: the decoded object and its buffers here, and the
 * JSON text the RPC layer keeps alongside it. Measured in isolation for a Transfer log (3
 * topics, 32 bytes of data): about 1.6 KB decoded, 0.1 KB as the RPC's view of it and 0.85 KB
 * of JSON text; the estimate (3.5 KB for it) keeps a margin for what a live heap adds.
 */
const LOG_OVERHEAD_BYTES = 3072;
/** Each byte of a log's topics and data is held about three times: raw, and as hex in the JSON text. */
const LOG_BYTE_COPIES = 3;

/** The estimated memory of a block's cached logs. */
function cachedLogsBytes(logs: readonly IndexedLog[]): number {
  let bytes = 1;
  for (const log of logs) bytes += LOG_OVERHEAD_BYTES + LOG_BYTE_COPIES * (log.data.length + 32 * log.topics.length);
  return bytes;
}

/** `block` with its object, header and tx list frozen: a cached block is shared by every reader. */
function frozen(block: ChainBlock): ChainBlock {
  Object.freeze(block.header);
  Object.freeze(block.txs);
  return Object.freeze(block);
}

function heightKey(prefix: number, height: number): Buffer {
  return key(prefix, uint64Be(height));
}


function bytesInt(bytes: unknown): bigint {
  if (!(bytes instanceof Uint8Array)) throw new BlockStoreError('stored record holds a list where an integer belongs');
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function bytesOf(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new BlockStoreError('stored record holds a list where bytes belong');
  return value;
}

function listOf(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new BlockStoreError('stored record holds bytes where a list belongs');
  return value;
}

/** Room for one stored receipt: at most a 2-byte list header, 1 + 1 + 3 × 21 + 3 × 33 bytes of fields. */
const receiptScratch = Buffer.allocUnsafe(192);
const EMPTY_BYTES = new Uint8Array(0);

/** A receipt's stored form, in a buffer the next call reuses: the caller copies it at once. */
function encodeReceipt(receipt: Receipt): Uint8Array {
  return encodeFlatListInto(receiptScratch, [
    receipt.status,
    receipt.txType,
    receipt.from,
    receipt.to ?? EMPTY_BYTES,
    receipt.contractAddress ?? EMPTY_BYTES,
    receipt.gasUsed,
    receipt.cumulativeGasUsed,
    receipt.effectiveGasPrice,
  ]);
}

function decodeReceipt(encoded: Uint8Array): Omit<Receipt, 'logs'> {
  const f = listOf(rlpDecode(encoded));
  if (f.length !== 8) throw new BlockStoreError(`stored receipt has ${f.length} fields, expected 8`);
  const to = bytesOf(f[3]);
  const created = bytesOf(f[4]);
  return {
    status: bytesInt(f[0]) === 1n ? 1 : 0,
    txType: Number(bytesInt(f[1])),
    from: bytesOf(f[2]),
    to: to.length ? to : null,
    contractAddress: created.length ? created : null,
    gasUsed: bytesInt(f[5]),
    cumulativeGasUsed: bytesInt(f[6]),
    effectiveGasPrice: bytesInt(f[7]),
  };
}

/** A Buffer over the same memory as `bytes` (no copy). */
function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The version tag that starts a self-contained log record (older records are a bare list of logs). */
const LOG_RECORD_V2 = Uint8Array.of(2);

/**
 * A block's log record: RLP of [2, blockHash, timeMs, [[txIndex, txHash, address, topics,
 * data], …]] with the logs in block order.
 */
function encodeBlockLogs(receipts: readonly Receipt[], hash: Uint8Array, timeMs: number, txHashes: readonly Uint8Array[]): Uint8Array {
  const items: Array<[number, Uint8Array, Uint8Array, Uint8Array[], Uint8Array]> = [];
  receipts.forEach((receipt, txIndex) => {
    for (const log of receipt.logs) items.push([txIndex, txHashes[txIndex]!, log.address, log.topics, log.data]);
  });
  return encodeRlp([LOG_RECORD_V2, hash, timeMs, items]);
}

/** A decoded log record; `block` is absent for a record of the older form, which names neither hash nor time. */
interface BlockLogRecord {
  block?: { hash: Buffer; timeMs: number };
  logs: Array<Log & { txIndex: number; txHash?: Buffer }>;
}

function decodeBlockLogs(encoded: Uint8Array): BlockLogRecord {
  const record = listOf(rlpDecode(encoded));
  if (record.length === 4 && record[0] instanceof Uint8Array) {
    return {
      block: { hash: bufferView(bytesOf(record[1])), timeMs: Number(bytesInt(record[2])) },
      logs: listOf(record[3]).map((item) => {
        const f = listOf(item);
        return { txIndex: Number(bytesInt(f[0])), txHash: bufferView(bytesOf(f[1])), address: bytesOf(f[2]), topics: listOf(f[3]).map(bytesOf), data: bytesOf(f[4]) };
      }),
    };
  }
  return {
    logs: record.map((item) => {
      const f = listOf(item);
      return { txIndex: Number(bytesInt(f[0])), address: bytesOf(f[1]), topics: listOf(f[2]).map(bytesOf), data: bytesOf(f[3]) };
    }),
  };
}

function encodeCommit(signatures: readonly CommitSignature[]): Uint8Array {
  return encodeRlp(signatures.map((s) => [s.validatorAddress, s.timestampMs, s.signature]));
}

function decodeCommit(encoded: Uint8Array): CommitSignature[] {
  return listOf(rlpDecode(encoded)).map((item) => {
    const f = listOf(item);
    return { validatorAddress: bytesOf(f[0]), timestampMs: Number(bytesInt(f[1])), signature: bytesOf(f[2]) };
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

function logMatches(log: Log, addresses: readonly Uint8Array[], topics: ReadonlyArray<readonly Uint8Array[] | null>): boolean {
  if (addresses.length > 0 && !addresses.some((a) => sameBytes(a, log.address))) return false;
  if (topics.length > log.topics.length) {
    // A position past the log's topics matches only when the filter accepts anything there.
    if (topics.slice(log.topics.length).some((t) => t && t.length > 0)) return false;
  }
  return topics.every((alternatives, i) => {
    if (!alternatives || alternatives.length === 0) return true;
    const topic = log.topics[i];
    return topic !== undefined && alternatives.some((t) => sameBytes(t, topic));
  });
}

/** The chain's block store. */
export class BlockStore {
  private latest: number | undefined;
  private earliest: number | undefined;
  /** Hashes of recently asked heights (BLOCKHASH asks the same 256 again and again). */
  private readonly hashes = new LRUCache<number, Buffer>({ max: HASHES_KEPT });
  /** Decoded logs of recently queried blocks, by height. */
  private readonly blockLogCache = new LRUCache<number, IndexedLog[]>({ maxSize: LOG_CACHE_BYTES, sizeCalculation: cachedLogsBytes });
  /** Recently read blocks, decoded and frozen (every reader shares them), by height. */
  private readonly decodedBlocks: LRUCache<number, ChainBlock>;

  /** Estimated bytes of the decoded blocks the store remembers (at most decodedBlockCapacity()). */
  decodedBlockBytes(): number {
    return this.decodedBlocks.calculatedSize;
  }

  /** The most estimated bytes of decoded blocks the store remembers. */
  decodedBlockCapacity(): number {
    return this.decodedBlocks.maxSize;
  }

  /** Estimated bytes of the decoded logs the store remembers (at most LOG_CACHE_BYTES). */
  logCacheBytes(): number {
    return this.blockLogCache.calculatedSize;
  }

  /** The most estimated bytes of decoded logs the store remembers. */
  logCacheCapacity(): number {
    return this.blockLogCache.maxSize;
  }

  /**
   * @param attached a borrowed store of another thread: it reads blocks at heights its owner
   * has already published, so it needs no visibility check (and its `latest` is only the
   * height at attach time).
   */
  private constructor(
    private readonly kv: PlainKv,
    private readonly attached = false,
  ) {
    const latest = kv.get(META_LATEST);
    const earliest = kv.get(META_EARLIEST);
    this.latest = latest ? readUint64Be(latest) : undefined;
    this.earliest = earliest ? readUint64Be(earliest) : undefined;
    this.decodedBlocks = new LRUCache({ maxSize: attached ? ATTACHED_BLOCK_CACHE_BYTES : BLOCK_CACHE_BYTES });
  }

  /** Opens the block store in `<dataDir>/blockstore`. */
  static async open(dataDir: string, options: PlainKvOptions = {}): Promise<BlockStore> {
    return new BlockStore(await PlainKv.open(join(dataDir, 'blockstore'), options));
  }

  /**
   * Borrows the block store another thread of this process shared under `token`, for reads of
   * blocks by height or hash (its latest and earliest heights are those at attach time).
   */
  static attach(token: number): BlockStore {
    return new BlockStore(PlainKv.attach(token), true);
  }

  /** A token with which another thread of this process reads this block store (attach()). */
  share(): number {
    return this.kv.share();
  }

  /** Height of the newest block, undefined when the store is empty. */
  latestHeight(): number | undefined {
    return this.latest;
  }

  /** Height of the oldest block kept, undefined when the store is empty. */
  earliestHeight(): number | undefined {
    return this.earliest;
  }

  /**
   * Saves `block` with one receipt per tx (same order) and the signatures that committed it,
   * in one synced write, and publishes it. The block must extend the latest one (height + 1,
   * matching `lastBlockHash`) and its tx root must match its txs. A block imported from an
   * Ethereum chain passes its `origin`: it is stored and found under its Ethereum hash.
   */
  async saveBlock(block: Block, receipts: readonly Receipt[], commitSignatures: readonly CommitSignature[], origin?: ImportedOrigin): Promise<Buffer> {
    const hash = await this.writeBlock(block, receipts, commitSignatures, origin);
    this.publishBlock(block.header.height, hash);
    return hash;
  }

  /**
   * The write of saveBlock without its publication: the block is durable once this resolves,
   * but reads do not see it (latestHeight, lookups by hash) until publishBlock. A follower
   * writes a block while its state commits, and publishes it once the state can answer for it.
   */
  async writeBlock(block: Block, receipts: readonly Receipt[], commitSignatures: readonly CommitSignature[], origin?: ImportedOrigin): Promise<Buffer> {
    const { header } = block;
    if (receipts.length !== block.txs.length) {
      throw new BlockStoreError(`block ${header.height} has ${block.txs.length} txs but ${receipts.length} receipts; pass one receipt per tx`);
    }
    if (!sameBytes(header.txRoot, txRoot(block.txs))) {
      throw new BlockStoreError(`block ${header.height}'s tx root does not match its txs`);
    }
    if (this.latest !== undefined) {
      if (header.height !== this.latest + 1) {
        throw new BlockStoreError(`block ${header.height} does not follow the latest stored block ${this.latest}; save block ${this.latest + 1} next`);
      }
      const previous = this.hashAt(this.latest);
      if (previous && !sameBytes(previous, header.lastBlockHash)) {
        throw new BlockStoreError(`block ${header.height}'s last block hash does not match stored block ${this.latest}`);
      }
    }
    const hash = origin ? Buffer.from(origin.hash) : blockHash(header);
    const height = uint64Be(header.height);
    const encoded = origin ? encodeImportedBlock(block, origin) : encodeBlock(block);
    // About 200 bytes of index and receipt per transaction besides the block itself.
    const ops = new PackedKvOps(encoded.length + 200 * block.txs.length + 1024);
    ops.putPrefixed(P_BLOCK, height, encoded);
    ops.putPrefixed(P_HASH, hash, height);
    ops.putPrefixed(P_COMMIT, height, encodeCommit(commitSignatures));
    ops.put(META_LATEST, height);
    if (this.earliest === undefined) ops.put(META_EARLIEST, height);
    const txHashes = block.txs.map((raw) => txHash(raw));
    // Each position is written into one buffer and copied into the batch from there.
    const position = Buffer.allocUnsafe(12);
    height.copy(position, 0);
    for (let index = 0; index < block.txs.length; index++) {
      position.writeUInt32BE(index, 8);
      const hashOfTx = txHashes[index]!;
      ops.putPrefixed(P_TX, hashOfTx, position);
      ops.putPrefixed(P_RECEIPT, hashOfTx, encodeReceipt(receipts[index]!));
    }
    const allLogs = receipts.flatMap((r) => r.logs);
    if (allLogs.length > 0) {
      ops.putPrefixed(P_LOGS, height, encodeBlockLogs(receipts, hash, header.timeMs, txHashes));
      ops.putPrefixed(P_BLOOM, height, logsBloom(allLogs));
    }
    await this.kv.writePacked(ops, { sync: true });
    return hash;
  }

  /** Makes the block writeBlock wrote at `height` (with hash `hash`) the latest. */
  publishBlock(height: number, hash: Buffer): void {
    if (height !== (this.latest ?? height - 1) + 1) {
      throw new BlockStoreError(`cannot publish block ${height}: the latest published block is ${this.latest}`);
    }
    this.latest = height;
    this.earliest ??= height;
    this.hashes.set(height, hash);
  }

  /**
   * Deletes every block above `height` with its txs, receipts, logs and commit, in one synced
   * write (rollback). Returns how many blocks went.
   */
  async truncateAbove(height: number): Promise<number> {
    if (this.latest === undefined || height >= this.latest) return 0;
    this.hashes.clear();
    this.blockLogCache.clear();
    const ops: PlainKvOp[] = [];
    let removed = 0;
    for (let h = this.latest; h > height && h >= (this.earliest ?? 1); h--) {
      const block = this.readBlock(h)?.block;
      if (!block) throw new BlockStoreError(`block ${h} is missing from the block store; it cannot be rolled back`);
      for (const raw of block.txs) {
        const hashOfTx = txHash(raw);
        ops.push({ key: key(P_TX, hashOfTx), value: null }, { key: key(P_RECEIPT, hashOfTx), value: null });
      }
      ops.push(
        { key: heightKey(P_BLOCK, h), value: null },
        { key: key(P_HASH, block.hash), value: null },
        { key: heightKey(P_COMMIT, h), value: null },
        { key: heightKey(P_LOGS, h), value: null },
        { key: heightKey(P_BLOOM, h), value: null },
      );
      removed++;
    }
    const empty = this.earliest === undefined || height < this.earliest;
    if (empty) {
      ops.push({ key: META_LATEST, value: null }, { key: META_EARLIEST, value: null });
    } else {
      ops.push({ key: META_LATEST, value: uint64Be(height) });
    }
    await this.kv.write(ops, { sync: true });
    // Only once they are gone: a read while the write ran may have remembered one again.
    this.decodedBlocks.clear();
    this.latest = empty ? undefined : height;
    if (empty) this.earliest = undefined;
    return removed;
  }

  /** The imported chain's geth genesis file, when this store holds an imported Ethereum chain. */
  importedChainGenesis(): string | undefined {
    return this.kv.get(META_IMPORTED_CHAIN)?.toString('utf8');
  }

  /** Records that this store holds the Ethereum chain of `genesis` (a geth genesis file); only into an empty store. */
  async saveImportedChainGenesis(genesis: string): Promise<void> {
    if (this.latest !== undefined) throw new BlockStoreError('an imported chain must be recorded before its first block; import into an empty home');
    await this.kv.write([{ key: META_IMPORTED_CHAIN, value: Buffer.from(genesis, 'utf8') }], { sync: true });
  }

  /** The block at `height`, or undefined; remembered decoded (frozen) for the next read. */
  blockByHeight(height: number): ChainBlock | undefined {
    const cached = this.decodedBlocks.get(height);
    if (cached !== undefined) return cached;
    const read = this.readBlock(height);
    if (read === undefined) return undefined;
    const { block, bytes } = read;
    const size = bytes + BLOCK_OVERHEAD_BYTES + TX_VIEW_BYTES * block.txs.length;
    if (size <= this.decodedBlocks.maxSize) this.decodedBlocks.set(height, frozen(block), { size });
    return block;
  }

  /** The block at `height` read and decoded, not remembered, with its record's length. */
  private readBlock(height: number): { block: ChainBlock; bytes: number } | undefined {
    const encoded = this.kv.get(heightKey(P_BLOCK, height));
    return encoded ? { block: this.decode(encoded, height), bytes: encoded.length } : undefined;
  }

  /**
   * The hash of the block at `height`, or undefined; decoded once, then remembered. Only the
   * hash is: BLOCKHASH asks for up to 256 blocks, whose bodies it never needs.
   */
  hashAt(height: number): Buffer | undefined {
    const known = this.hashes.get(height);
    if (known !== undefined) return known;
    const hash = (this.decodedBlocks.get(height) ?? this.readBlock(height)?.block)?.hash;
    if (hash === undefined) return undefined;
    this.hashes.set(height, hash);
    return hash;
  }

  /**
   * Whether a block at `height` found through a hash is published. saveBlock's write becomes
   * readable before it resolves and raises `latest`; until then a lookup by block or tx hash
   * must not find the new block, or a client would be shown a receipt of a block that
   * `latest` does not reach yet (and an eth_call at `latest` would miss its effects).
   */
  #published(height: number): boolean {
    return this.attached || (this.latest !== undefined && height <= this.latest);
  }

  /** The block with hash `hash`, or undefined. */
  blockByHash(hash: Uint8Array): ChainBlock | undefined {
    const height = this.heightOfHash(hash);
    return height === undefined ? undefined : this.blockByHeight(height);
  }

  /** Height of the block with hash `hash`, or undefined. */
  heightOfHash(hash: Uint8Array): number | undefined {
    const stored = this.kv.get(key(P_HASH, hash));
    if (!stored) return undefined;
    const height = readUint64Be(stored);
    return this.#published(height) ? height : undefined;
  }

  /** The height and index of the tx with hash `hash`, without reading its block; undefined if unknown. */
  txPosition(hash: Uint8Array): { height: number; index: number } | undefined {
    const position = this.kv.get(key(P_TX, hash));
    if (!position) return undefined;
    const height = readUint64Be(position);
    return this.#published(height) ? { height, index: position.readUInt32BE(8) } : undefined;
  }

  /** The block that includes the tx with hash `hash`, and the tx's index in it; undefined if unknown. */
  txInBlock(hash: Uint8Array): { block: ChainBlock; index: number } | undefined {
    const position = this.txPosition(hash);
    if (!position) return undefined;
    const { height, index } = position;
    const block = this.blockByHeight(height);
    if (!block || index >= block.txs.length) {
      throw new BlockStoreError(`tx index points at block ${height} position ${index}, which is missing; the block store is damaged`);
    }
    return { block, index };
  }

  /** Where the tx with hash `hash` was included, with its raw bytes; undefined if unknown. */
  txByHash(hash: Uint8Array): TxLocation | undefined {
    const found = this.txInBlock(hash);
    return found && { height: found.block.header.height, index: found.index, rawTx: found.block.txs[found.index]! };
  }

  /** The receipt of the tx with hash `hash`, with its logs; undefined if unknown. */
  receipt(hash: Uint8Array): StoredReceipt | undefined {
    const [position, encoded] = this.kv.getMany([key(P_TX, hash), key(P_RECEIPT, hash)]);
    if (!position || !encoded) return undefined;
    const blockHeight = readUint64Be(position);
    if (!this.#published(blockHeight)) return undefined;
    const txIndex = position.readUInt32BE(8);
    const block = this.blockByHeight(blockHeight);
    if (!block) throw new BlockStoreError(`receipt points at block ${blockHeight}, which is missing; the block store is damaged`);
    // The block's logs as eth_getLogs remembers them: the receipts of one block share them.
    const logs = this.logsOfHeights([blockHeight])[0]!.filter((log) => log.txIndex === txIndex);
    return withFields(decodeReceipt(encoded), {
      txHash: Buffer.from(hash),
      blockHeight,
      blockHash: block.hash,
      blockTimeMs: block.header.timeMs,
      txIndex,
      logs,
      logsBloom: logsBloom(logs),
    });
  }

  /**
   * The receipts of every tx of the block at `height`, in order; undefined for an unknown
   * height. The block and its logs are decoded once and the receipts read in one batch, not
   * once per transaction.
   */
  receiptsOfBlock(height: number): StoredReceipt[] | undefined {
    const block = this.blockByHeight(height);
    if (!block) return undefined;
    const hashes = block.txs.map((raw) => txHash(raw));
    const encoded = hashes.length === 0 ? [] : this.kv.getMany(hashes.map((hash) => key(P_RECEIPT, hash)));
    const byTx = new Map<number, IndexedLog[]>();
    for (const log of this.blockLogs(block)) {
      const list = byTx.get(log.txIndex);
      if (list) list.push(log);
      else byTx.set(log.txIndex, [log]);
    }
    return hashes.map((hash, txIndex) => {
      const receipt = encoded[txIndex];
      if (!receipt) throw new BlockStoreError(`block ${height} holds tx ${txIndex} without a receipt; the block store is damaged`);
      const logs = byTx.get(txIndex) ?? [];
      return withFields(decodeReceipt(receipt), {
        txHash: hash,
        blockHeight: height,
        blockHash: block.hash,
        blockTimeMs: block.header.timeMs,
        txIndex,
        logs,
        logsBloom: logsBloom(logs),
      });
    });
  }

  /** Every log of the block at `height` (empty for an unknown height). */
  logsOfBlock(height: number): IndexedLog[] {
    const block = this.blockByHeight(height);
    return block ? this.blockLogs(block) : [];
  }

  /** Logs in [fromBlock, toBlock] matching the filter, in chain order. */
  logs(filter: LogFilter): IndexedLog[] {
    const addresses = filter.addresses ?? [];
    const topics = filter.topics ?? [];
    if (filter.toBlock < filter.fromBlock) return [];
    const out: IndexedLog[] = [];
    const mayMatch = bloomFilterMatcher(addresses, topics);
    const end = heightKey(P_BLOOM, filter.toBlock + 1);
    let start = heightKey(P_BLOOM, filter.fromBlock);
    for (;;) {
      const blooms = this.kv.range({ start, end, limit: BLOOM_SCAN_BATCH });
      const heights: number[] = [];
      for (const { key: bloomKey, value: bloom } of blooms) {
        if (mayMatch(bloom)) heights.push(readUint64Be(bloomKey, 1));
      }
      for (const logs of this.logsOfHeights(heights)) {
        for (const log of logs) if (logMatches(log, addresses, topics)) out.push(log);
      }
      if (blooms.length < BLOOM_SCAN_BATCH) return out;
      start = heightKey(P_BLOOM, readUint64Be(blooms[blooms.length - 1]!.key, 1) + 1);
    }
  }

  /** The signatures that committed the block at `height`, or undefined. */
  commit(height: number): Commit | undefined {
    const [encoded, block] = this.kv.getMany([heightKey(P_COMMIT, height), heightKey(P_BLOCK, height)]);
    if (!encoded || !block) return undefined;
    return { height, blockHash: this.decode(block, height).hash, signatures: decodeCommit(encoded) };
  }

  /** Closes the underlying store. */
  async close(): Promise<void> {
    await this.kv.close();
  }

  private decode(encoded: Uint8Array, height: number): ChainBlock {
    try {
      return isImportedRecord(encoded) ? decodeImportedBlock(encoded) : decodeBlock(encoded);
    } catch (error) {
      const reason = error instanceof BlockFormatError ? error.message : String(error);
      throw new BlockStoreError(`stored block ${height} cannot be decoded (${reason}); the block store is damaged`);
    }
  }

  /**
   * The logs of each of `heights` (blocks that have logs), remembered or read: the records not
   * remembered are read with one native call, not one read per block.
   */
  private logsOfHeights(heights: readonly number[]): IndexedLog[][] {
    const out: Array<IndexedLog[] | undefined> = heights.map((h) => this.blockLogCache.get(h));
    const missing = heights.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out as IndexedLog[][];
    const records = this.kv.getMany(missing.map((h) => heightKey(P_LOGS, h)));
    let next = 0;
    return out.map((known, i) => {
      if (known !== undefined) return known;
      const height = heights[i]!;
      const encoded = records[next++];
      const logs = encoded ? this.recordLogs(height, decodeBlockLogs(encoded)) : [];
      this.blockLogCache.set(height, logs);
      return logs;
    });
  }

  /** The logs of block `height`'s log record; a record of the older form is completed from its block. */
  private recordLogs(height: number, record: BlockLogRecord): IndexedLog[] {
    const block = record.block;
    if (block === undefined) return this.logsOfBlock(height);
    return record.logs.map((log, logIndex) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockHeight: height,
      blockHash: block.hash,
      blockTimeMs: block.timeMs,
      txHash: log.txHash!,
      txIndex: log.txIndex,
      logIndex,
    }));
  }

  private blockLogs(block: StoredBlock): IndexedLog[] {
    const encoded = this.kv.get(heightKey(P_LOGS, block.header.height));
    if (!encoded) return [];
    const record = decodeBlockLogs(encoded);
    if (record.block !== undefined) return this.recordLogs(block.header.height, record);
    const hashes = new Map<number, Buffer>();
    return record.logs.map((log, logIndex) => {
      let hashOfTx = hashes.get(log.txIndex);
      if (!hashOfTx) {
        const raw = block.txs[log.txIndex];
        if (!raw) throw new BlockStoreError(`block ${block.header.height} has a log of tx ${log.txIndex}, which it does not hold`);
        hashOfTx = txHash(raw);
        hashes.set(log.txIndex, hashOfTx);
      }
      return withFields(log, {
        blockHeight: block.header.height,
        blockHash: block.hash,
        blockTimeMs: block.header.timeMs,
        txHash: hashOfTx,
        txIndex: log.txIndex,
        logIndex,
      });
    });
  }
}
