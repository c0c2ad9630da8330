/**
 * The proposal log: the block a validator is about to produce, synced to `data/proposal.json`
 * before the block is executed. Execution, signing and storing are separate writes, so a crash
 * can fall between them; the record lets a restart build exactly the same block again (same
 * transactions, same time, hence the same header and hash), which the signer may sign again,
 * instead of a new block at a height it has already signed. It also proves, at start, that a
 * state one block ahead of the block store holds this block and nothing else.
 *
 *   {height, time_ms, proposer, base_fee, gas_limit, last_block_hash, app_hash, txs: [hex]}
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurablyAsync } from './durable-file.js';

/** Everything a block's header and body are built from, apart from its execution results. */
export interface Proposal {
  height: number;
  timeMs: number;
  /** The 20-byte consensus address of the proposer. */
  proposer: Uint8Array;
  baseFee: bigint;
  gasLimit: bigint;
  /** The hash of block height − 1 (zero for the first block). */
  lastBlockHash: Uint8Array;
  /** The app hash after block height − 1, which the header carries. */
  appHash: Uint8Array;
  /** The raw transactions handed to execution, in order (skipped ones included). */
  txs: Uint8Array[];
}

/** The proposal file is unreadable or malformed; the message says what to do. */
export class ProposalFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProposalFileError';
  }
}

/** Where the proposal log of the data directory `dataDir` lives. */
export function proposalPath(dataDir: string): string {
  return join(dataDir, 'proposal.json');
}

// A view, not a copy: a block's transactions are hundreds of kilobytes.
const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** The file text of `proposal`. */
export function proposalJson(proposal: Proposal): string {
  return `${JSON.stringify({
    height: String(proposal.height),
    time_ms: String(proposal.timeMs),
    proposer: hex(proposal.proposer),
    base_fee: proposal.baseFee.toString(),
    gas_limit: proposal.gasLimit.toString(),
    last_block_hash: hex(proposal.lastBlockHash),
    app_hash: hex(proposal.appHash),
    txs: proposal.txs.map(hex),
  })}\n`;
}

/** Writes the proposal log durably: synced (file and directory) before the promise resolves. */
export async function writeProposal(path: string, proposal: Proposal): Promise<void> {
  await writeFileDurablyAsync(path, proposalJson(proposal));
}

/**
 * Forgets the proposal once its block is stored. Not synced: a record that comes back after a
 * crash is at or below the stored height, which marks it done.
 */
export function removeProposal(path: string): void {
  rmSync(path, { force: true });
}

/** Reads the proposal log; undefined when there is none. */
export function loadProposal(path: string): Proposal | undefined {
  if (!existsSync(path)) return undefined;
  const damaged = (why: string): ProposalFileError =>
    new ProposalFileError(
      `the proposal log ${path} is damaged (${why}); move it aside and start again: the node then starts when the state and ` +
        'the block store agree, and otherwise asks for `stratad rollback`',
    );
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw damaged('not a JSON object');
    json = parsed as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ProposalFileError) throw error;
    throw damaged((error as Error).message);
  }
  const decimal = (name: string): bigint => {
    const value = json[name];
    if (typeof value !== 'string' || !/^\d+$/.test(value)) throw damaged(`${name} must be a decimal string`);
    return BigInt(value);
  };
  const bytes = (name: string, value: unknown = json[name]): Buffer => {
    if (typeof value !== 'string' || !/^([0-9a-f]{2})*$/.test(value)) throw damaged(`${name} must be lower-case hex`);
    return Buffer.from(value, 'hex');
  };
  const height = Number(decimal('height'));
  const timeMs = Number(decimal('time_ms'));
  if (!Number.isSafeInteger(height) || height < 1 || !Number.isSafeInteger(timeMs)) throw damaged('height or time_ms out of range');
  if (!Array.isArray(json.txs)) throw damaged('txs must be a list');
  return {
    height,
    timeMs,
    proposer: bytes('proposer'),
    baseFee: decimal('base_fee'),
    gasLimit: decimal('gas_limit'),
    lastBlockHash: bytes('last_block_hash'),
    appHash: bytes('app_hash'),
    txs: (json.txs as unknown[]).map((tx) => bytes('txs', tx)),
  };
}
