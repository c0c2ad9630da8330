/**
 * The genesis file (`config/genesis.json`): chain ids, initial height and time, funded
 * accounts, the validator set and chain params; parsing with errors that name the field, and
 * the changesets InitChain stages.
 */
import type { NamedChangeset } from '../store/index.js';
import { BANK_STORE, encodeUint } from '../evm/keys.js';
import { GenesisError } from './errors.js';
import { validatorRecordPairs } from './staking.js';

/** The EVM chain id used when genesis.json does not set one. */
export const DEFAULT_EVM_CHAIN_ID = 713715;

/** A funded account at genesis. */
export interface GenesisAccount {
  /** 0x-prefixed 20-byte hex address. */
  address: string;
  /** Balance in wei, as a decimal string or 0x-hex string. */
  balance: string;
}

/** A validator at genesis. */
export interface GenesisValidator {
  /** The consensus address, 20-byte hex. */
  address: string;
  /** The ed25519 public key, base64. */
  pub_key: { type: string; value: string };
  power: number;
  /** The validator's moniker, when genesis.json names it. */
  name?: string;
}

/** Chain parameters fixed at genesis. */
export interface ChainParams {
  /** Gas limit of every block. */
  block_gas_limit: number;
  /** Base fee of the first block, wei. */
  initial_base_fee: string;
  /** Lowest base fee the chain charges, wei. */
  min_base_fee: string;
  /** Milliseconds between blocks. */
  block_time_ms: number;
}

/** The parsed genesis file. */
export interface Genesis {
  chain_id: string;
  evm_chain_id: number;
  initial_height: number;
  /** RFC 3339. */
  genesis_time: string;
  accounts: GenesisAccount[];
  validators: GenesisValidator[];
  params: ChainParams;
}

/** Params used for fields genesis.json leaves out. */
export const DEFAULT_CHAIN_PARAMS: ChainParams = {
  block_gas_limit: 30_000_000,
  initial_base_fee: '1000000000',
  min_base_fee: '1000000000',
  block_time_ms: 1000,
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(field: string, problem: string): never {
  throw new GenesisError(`genesis.json: ${field} ${problem}`);
}

function str(obj: Json, key: string, field: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value.length === 0) fail(field, 'must be a non-empty string');
  return value;
}

function positiveInt(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) fail(field, `must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function wei(value: unknown, field: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|\d+)$/.test(value)) fail(field, `must be a non-negative integer in wei (decimal or 0x-hex string), got ${JSON.stringify(value)}`);
  const amount = BigInt(value);
  if (amount >= 1n << 256n) fail(field, 'does not fit in 256 bits');
  return amount;
}

function parseParams(raw: unknown): ChainParams {
  if (raw === undefined) return { ...DEFAULT_CHAIN_PARAMS };
  if (!isObject(raw)) fail('params', 'must be an object');
  const params = { ...DEFAULT_CHAIN_PARAMS };
  if (raw.block_gas_limit !== undefined) params.block_gas_limit = positiveInt(raw.block_gas_limit, 'params.block_gas_limit');
  if (raw.block_time_ms !== undefined) params.block_time_ms = positiveInt(raw.block_time_ms, 'params.block_time_ms');
  if (raw.initial_base_fee !== undefined) params.initial_base_fee = wei(raw.initial_base_fee, 'params.initial_base_fee').toString();
  if (raw.min_base_fee !== undefined) params.min_base_fee = wei(raw.min_base_fee, 'params.min_base_fee').toString();
  return params;
}

function parseAccounts(raw: unknown): GenesisAccount[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail('accounts', 'must be an array');
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const field = `accounts[${i}]`;
    if (!isObject(item)) fail(field, 'must be an object with address and balance');
    const address = str(item, 'address', `${field}.address`);
    if (!ADDRESS.test(address)) fail(`${field}.address`, `must be a 0x-prefixed 20-byte hex address, got "${address}"`);
    const lower = address.toLowerCase();
    if (seen.has(lower)) fail(`${field}.address`, `repeats ${address}; list each account once`);
    seen.add(lower);
    return { address: lower, balance: wei(item.balance, `${field}.balance`).toString() };
  });
}

function parseValidators(raw: unknown): GenesisValidator[] {
  if (!Array.isArray(raw) || raw.length === 0) fail('validators', 'must list at least one validator');
  return raw.map((item, i) => {
    const field = `validators[${i}]`;
    if (!isObject(item)) fail(field, 'must be an object with address, pub_key and power');
    const address = str(item, 'address', `${field}.address`);
    if (!HEX_ADDRESS.test(address)) fail(`${field}.address`, `must be a 20-byte hex address, got "${address}"`);
    const pubKey = item.pub_key;
    if (!isObject(pubKey) || typeof pubKey.value !== 'string' || Buffer.from(pubKey.value, 'base64').length !== 32) {
      fail(`${field}.pub_key`, 'must be {"type": "tendermint/PubKeyEd25519", "value": <32-byte base64>}');
    }
    const type = typeof pubKey.type === 'string' ? pubKey.type : 'tendermint/PubKeyEd25519';
    return {
      address: address.replace(/^0x/, '').toUpperCase(),
      pub_key: { type, value: pubKey.value },
      power: positiveInt(item.power, `${field}.power`),
      ...(typeof item.name === 'string' ? { name: item.name } : {}),
    };
  });
}

/** Validates a parsed genesis.json document and fills defaults (evm_chain_id, initial_height, params). */
export function parseGenesis(doc: unknown): Genesis {
  if (!isObject(doc)) fail('the document', 'must be a JSON object');
  const chainId = str(doc, 'chain_id', 'chain_id');
  const genesisTime = str(doc, 'genesis_time', 'genesis_time');
  if (Number.isNaN(Date.parse(genesisTime))) fail('genesis_time', `must be an RFC 3339 time, got "${genesisTime}"`);
  return {
    chain_id: chainId,
    evm_chain_id: doc.evm_chain_id === undefined ? DEFAULT_EVM_CHAIN_ID : positiveInt(doc.evm_chain_id, 'evm_chain_id'),
    initial_height: doc.initial_height === undefined ? 1 : positiveInt(doc.initial_height, 'initial_height'),
    genesis_time: genesisTime,
    accounts: parseAccounts(doc.accounts),
    validators: parseValidators(doc.validators),
    params: parseParams(doc.params),
  };
}

/** Parses genesis.json text; JSON syntax errors name the file. */
export function parseGenesisJson(text: string): Genesis {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new GenesisError(`genesis.json is not valid JSON: ${(error as Error).message}`);
  }
  return parseGenesis(doc);
}

/** The `staking` store's key of the validator set. */
export const VALIDATORS_KEY = new TextEncoder().encode('validators');
/** The `params` store's key of the chain params. */
export const CHAIN_PARAMS_KEY = new TextEncoder().encode('chain');

/** The genesis state as changesets: bank balances, the validator set with each validator's record, and the chain params. */
export function genesisChangesets(genesis: Genesis): NamedChangeset[] {
  const balances = genesis.accounts
    .filter((a) => BigInt(a.balance) > 0n)
    .map((a) => ({ key: Buffer.from(a.address.slice(2), 'hex') as Uint8Array, value: encodeUint(BigInt(a.balance), 32) as Uint8Array | null }))
    .sort((x, y) => Buffer.compare(x.key, y.key));
  const validators = genesis.validators.map((v) => ({ address: v.address, pubKey: v.pub_key.value, power: v.power }));
  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  return [
    { name: BANK_STORE, pairs: balances },
    { name: 'params', pairs: [{ key: CHAIN_PARAMS_KEY, value: json(genesis.params) }] },
    {
      name: 'staking',
      pairs: [{ key: VALIDATORS_KEY, value: json(validators) }, ...validatorRecordPairs(genesis.validators)].sort((x, y) =>
        Buffer.compare(x.key, y.key),
      ),
    },
  ];
}
