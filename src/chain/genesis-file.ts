/**
 * genesis.json: the chain's starting point (ids, time, funded accounts, validators, params),
 * and the deterministic development accounts `stratad init` funds for local chains.
 */
import { DEFAULT_CHAIN_PARAMS, parseGenesis, type ChainParams, type GenesisAccount } from '../app/genesis.js';
import { readFileSync } from 'node:fs';
import secp256k1 from 'secp256k1';
import { writeFileDurably } from './durable-file.js';
import { checksumAddress } from '../util/keccak.js';
import { keccak256 } from './hash.js';
import { PUB_KEY_TYPE, type ValidatorKey } from './keys.js';

/** EVM chain id used when `init` is not given one. */
export const DEFAULT_EVM_CHAIN_ID = 713715;
/** Balance of each development account: 10,000 ether in wei. */
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;
/** The fixed seed development keys derive from; anyone can recompute them, never fund them on a public chain. */
export const DEV_ACCOUNT_SEED = 'strata development accounts: test test test test test test test test test test test junk';

/** A funded account: 0x address (lower case) and balance in wei as a decimal string. */
export type { GenesisAccount };

/** A genesis validator in CometBFT's shape. */
export interface GenesisValidator {
  /** Upper-hex consensus address. */
  address: string;
  pub_key: { type: string; value: string };
  /** Voting power, decimal string. */
  power: string;
  name: string;
}

/** Chain parameters the app reads at genesis (src/app/genesis.ts). */
export type GenesisParams = ChainParams;

/** The genesis.json document. */
export interface GenesisFile {
  genesis_time: string;
  chain_id: string;
  evm_chain_id: number;
  initial_height: string;
  validators: GenesisValidator[];
  accounts: GenesisAccount[];
  params: GenesisParams;
  app_hash: string;
}

/** A development account: its key is public knowledge. */
export interface DevAccount {
  /** EIP-55 checksummed 0x address. */
  address: string;
  /** 0x-prefixed 32-byte private key. */
  privateKey: string;
}

/** genesis.json is missing or malformed; the message names the field. */
export class GenesisFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenesisFileError';
  }
}

/** Ethereum address (20 bytes) of a secp256k1 private key. */
export function ethereumAddress(privateKey: Uint8Array): Buffer {
  const uncompressed = secp256k1.publicKeyCreate(privateKey, false);
  return keccak256(uncompressed.subarray(1)).subarray(12);
}

export { checksumAddress };

/**
 * The first `count` development accounts: key i = keccak256(seed ‖ i as 4 bytes), re-hashed
 * in the (astronomically unlikely) case it is not a valid secp256k1 key.
 */
export function devAccounts(count: number): DevAccount[] {
  const seed = Buffer.from(DEV_ACCOUNT_SEED, 'utf8');
  const out: DevAccount[] = [];
  for (let i = 0; i < count; i++) {
    const index = Buffer.alloc(4);
    index.writeUInt32BE(i);
    let key = keccak256(Buffer.concat([seed, index]));
    while (!secp256k1.privateKeyVerify(key)) key = keccak256(key);
    out.push({ address: checksumAddress(ethereumAddress(key)), privateKey: `0x${key.toString('hex')}` });
  }
  return out;
}

/** What `buildGenesis` needs. */
export interface GenesisInput {
  chainId: string;
  evmChainId?: number;
  time?: Date;
  validators: Array<{ key: ValidatorKey; power: number; name: string }>;
  accounts: Array<{ address: string; balance: bigint }>;
}

/** A genesis document with default params. */
export function buildGenesis(input: GenesisInput): GenesisFile {
  if (input.chainId.trim() === '') throw new GenesisFileError('chain_id must not be empty; pass --chain-id, e.g. strata-local-1');
  return {
    genesis_time: (input.time ?? new Date()).toISOString(),
    chain_id: input.chainId,
    evm_chain_id: input.evmChainId ?? DEFAULT_EVM_CHAIN_ID,
    initial_height: '1',
    validators: input.validators.map(({ key, power, name }) => ({
      address: key.address,
      pub_key: { type: PUB_KEY_TYPE, value: key.publicKey.toString('base64') },
      power: String(power),
      name,
    })),
    accounts: input.accounts.map(({ address, balance }) => ({ address: address.toLowerCase(), balance: balance.toString() })),
    params: { ...DEFAULT_CHAIN_PARAMS },
    app_hash: '',
  };
}

/** Writes genesis.json. */
export function writeGenesisFile(path: string, genesis: GenesisFile): void {
  writeFileDurably(path, `${JSON.stringify(genesis, null, 2)}\n`, 0o644);
}

function need(condition: boolean, path: string, message: string): void {
  if (!condition) throw new GenesisFileError(`${path}: ${message}`);
}

const isDecimal = (value: unknown): value is string => typeof value === 'string' && /^\d+$/.test(value);

/** Reads and checks genesis.json. */
export function readGenesisFile(path: string): GenesisFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new GenesisFileError(`cannot read ${path} (${(error as Error).message}); run \`stratad init\` or copy the chain's genesis.json there`);
  }
  const g = json as Partial<GenesisFile>;
  need(typeof g.chain_id === 'string' && g.chain_id !== '', path, 'chain_id must be a non-empty string');
  need(Number.isSafeInteger(g.evm_chain_id) && (g.evm_chain_id ?? 0) > 0, path, 'evm_chain_id must be a positive integer');
  need(typeof g.genesis_time === 'string' && !Number.isNaN(Date.parse(g.genesis_time)), path, 'genesis_time must be an RFC 3339 time');
  need(isDecimal(g.initial_height) && Number(g.initial_height) >= 1, path, 'initial_height must be a decimal string >= 1');
  need(Array.isArray(g.validators) && g.validators.length > 0, path, 'validators must list at least one validator');
  for (const v of g.validators ?? []) {
    need(typeof v.address === 'string' && /^[0-9A-F]{40}$/.test(v.address), path, `validator address "${v.address}" must be 40 upper-case hex digits`);
    need(v.pub_key?.type === PUB_KEY_TYPE && typeof v.pub_key.value === 'string', path, `validator ${v.address}: pub_key must be a ${PUB_KEY_TYPE}`);
    need(isDecimal(v.power), path, `validator ${v.address}: power must be a decimal string`);
  }
  need(Array.isArray(g.accounts), path, 'accounts must be a list');
  for (const a of g.accounts ?? []) {
    need(typeof a.address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a.address), path, `account address "${a.address}" must be 0x and 40 hex digits`);
    need(isDecimal(a.balance), path, `account ${a.address}: balance must be a decimal string of wei`);
  }
  try {
    // The app's own reading of the file (params and all) must accept it too.
    parseGenesis(json);
  } catch (error) {
    throw new GenesisFileError(`${path}: ${(error as Error).message}`);
  }
  return g as GenesisFile;
}
