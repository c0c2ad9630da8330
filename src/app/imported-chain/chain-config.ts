/**
 * The rules and genesis state of an imported Ethereum chain, read from its geth genesis file:
 * the fork schedule (by block, by time, and the merge) as an @ethereumjs Common per block, and
 * the genesis alloc as module-store changesets.
 */
import { Common, Hardfork, createCommonFromGethGenesis, type GethGenesis } from '@ethereumjs/common';

import { nativeCrypto } from '../../evm/crypto.js';
import { keccak256 } from '../../util/keccak.js';
import { BANK_STORE, EVM_STORE, balanceKey, codeHashKey, codeKey, codeSizeKey, encodeUint, nonceKey, storageKey } from '../../evm/keys.js';
import type { StateView } from '../../evm/state-manager.js';
import type { KVPair, NamedChangeset } from '../../store/index.js';
import { mergeChangesets } from '../changesets.js';
import { ImportedChainConfigError } from './errors.js';

/** One account of the genesis alloc. */
export interface EthAllocAccount {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** 32-byte slot → 32-byte value, zero values left out. */
  storage: Array<[Uint8Array, Uint8Array]>;
}

/** Hardforks newer than @ethereumjs/common 10.1.3 knows: a chain scheduling them cannot be imported. */
const KNOWN_FORK_KEYS = new Set([
  'chainId', 'homesteadBlock', 'daoForkBlock', 'daoForkSupport', 'eip150Block', 'eip150Hash', 'eip155Block', 'eip158Block',
  'byzantiumBlock', 'constantinopleBlock', 'petersburgBlock', 'istanbulBlock', 'muirGlacierBlock', 'berlinBlock',
  'londonBlock', 'arrowGlacierBlock', 'grayGlacierBlock', 'mergeNetsplitBlock', 'mergeForkBlock', 'shanghaiTime',
  'cancunTime', 'pragueTime', 'osakaTime', 'bpo1Time', 'bpo2Time', 'bpo3Time', 'bpo4Time', 'bpo5Time',
  'terminalTotalDifficulty', 'terminalTotalDifficultyPassed', 'depositContractAddress', 'ethash', 'clique', 'blobSchedule',
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quantity(value: unknown, field: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]*|\d+)$/.test(value)) return value === '0x' ? 0n : BigInt(value);
  throw new ImportedChainConfigError(`genesis ${field} must be a non-negative integer (decimal or 0x-hex), got ${JSON.stringify(value)}`);
}

function hexBytes(value: unknown, field: string): Uint8Array {
  if (value === undefined || value === null) return new Uint8Array();
  if (typeof value !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(value)) {
    throw new ImportedChainConfigError(`genesis ${field} must be an even-length hex string, got ${JSON.stringify(value)}`);
  }
  return Buffer.from(value.replace(/^0x/, ''), 'hex');
}

function word(value: unknown, field: string): Uint8Array {
  const bytes = hexBytes(typeof value === 'string' && value.replace(/^0x/, '').length % 2 ? `0${value.replace(/^0x/, '')}` : value, field);
  if (bytes.length > 32) throw new ImportedChainConfigError(`genesis ${field} is longer than 32 bytes`);
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

function parseAlloc(raw: unknown): Map<string, EthAllocAccount> {
  if (!isObject(raw)) throw new ImportedChainConfigError('genesis alloc must be an object of address → account');
  const accounts = new Map<string, EthAllocAccount>();
  for (const [address, entry] of Object.entries(raw)) {
    const hex = address.replace(/^0x/, '').toLowerCase();
    if (!/^[0-9a-f]{40}$/.test(hex)) throw new ImportedChainConfigError(`genesis alloc key "${address}" is not a 20-byte hex address`);
    if (!isObject(entry)) throw new ImportedChainConfigError(`genesis alloc ${address} must be an object`);
    const storage: Array<[Uint8Array, Uint8Array]> = [];
    if (entry.storage !== undefined) {
      if (!isObject(entry.storage)) throw new ImportedChainConfigError(`genesis alloc ${address}.storage must be an object of slot → value`);
      for (const [slot, value] of Object.entries(entry.storage)) {
        const v = word(value, `alloc ${address}.storage[${slot}]`);
        if (v.some((b) => b !== 0)) storage.push([word(slot, `alloc ${address}.storage key ${slot}`), v]);
      }
    }
    accounts.set(hex, {
      balance: quantity(entry.balance, `alloc ${address}.balance`),
      nonce: quantity(entry.nonce, `alloc ${address}.nonce`),
      code: hexBytes(entry.code, `alloc ${address}.code`),
      storage,
    });
  }
  return accounts;
}

/** The alloc as the module stores hold it: balances in `bank`, nonce / code / storage in `evm`. */
function allocChangesets(alloc: ReadonlyMap<string, EthAllocAccount>): NamedChangeset[] {
  const bank: KVPair[] = [];
  const evm: KVPair[] = [];
  for (const [hex, account] of alloc) {
    const address = Buffer.from(hex, 'hex');
    if (account.balance > 0n) bank.push({ key: balanceKey(address), value: encodeUint(account.balance, 32) });
    const empty = account.balance === 0n && account.nonce === 0n && account.code.length === 0;
    // An empty account still exists in Ethereum's state; a stored zero nonce records that (see ImportedStateManager).
    if (account.nonce > 0n || empty) evm.push({ key: nonceKey(address), value: encodeUint(account.nonce, 8) });
    if (account.code.length > 0) {
      evm.push({ key: codeKey(address), value: account.code });
      evm.push({ key: codeHashKey(address), value: keccak256(account.code) });
      evm.push({ key: codeSizeKey(address), value: encodeUint(BigInt(account.code.length), 8) });
    }
    for (const [slot, value] of account.storage) evm.push({ key: storageKey(address, slot), value });
  }
  // mergeChangesets sorts stores and keys, the order every node must emit.
  return mergeChangesets([], [{ name: BANK_STORE, pairs: bank }, { name: EVM_STORE, pairs: evm }]);
}

/** An imported chain's fork rules and genesis, from its geth genesis file. */
export class ImportedChainConfig {
  readonly chainId: bigint;
  /** The genesis file as given, kept with the imported chain so a node can rebuild these rules. */
  readonly source: string;
  readonly genesisTimestamp: bigint;
  readonly genesisGasLimit: bigint;
  readonly genesisCoinbase: Uint8Array;
  readonly genesisBaseFee: bigint;
  /** The genesis header's proof-of-work fields, as the genesis file gives them. */
  readonly genesisDifficulty: bigint;
  readonly genesisExtraData: Uint8Array;
  /** 8 bytes. */
  readonly genesisNonce: Uint8Array;
  readonly genesisMixHash: Uint8Array;
  readonly alloc: ReadonlyMap<string, EthAllocAccount>;
  readonly #common: Common;

  private constructor(source: string, doc: Json) {
    const config = doc.config;
    if (!isObject(config)) throw new ImportedChainConfigError('genesis has no "config" object; pass a geth genesis.json');
    const unknown = Object.keys(config).filter((key) => !KNOWN_FORK_KEYS.has(key) && /(Block|Time)$/.test(key));
    if (unknown.length > 0) {
      throw new ImportedChainConfigError(`genesis config schedules ${unknown.join(', ')}, which this node's EVM (@ethereumjs 10.1.3) does not implement`);
    }
    this.source = source;
    this.chainId = quantity(config.chainId, 'config.chainId');
    this.genesisTimestamp = quantity(doc.timestamp, 'timestamp');
    this.genesisGasLimit = quantity(doc.gasLimit, 'gasLimit');
    this.genesisBaseFee = quantity(doc.baseFeePerGas, 'baseFeePerGas');
    this.genesisCoinbase = word(doc.coinbase ?? '0x', 'coinbase').subarray(12);
    this.genesisDifficulty = quantity(doc.difficulty, 'difficulty');
    this.genesisExtraData = hexBytes(doc.extraData, 'extraData');
    this.genesisNonce = word(doc.nonce ?? '0x', 'nonce').subarray(24);
    this.genesisMixHash = word(doc.mixHash ?? '0x', 'mixHash');
    this.alloc = parseAlloc(doc.alloc);
    try {
      this.#common = createCommonFromGethGenesis(doc as unknown as GethGenesis, { chain: `chain-${this.chainId}`, customCrypto: nativeCrypto });
    } catch (error) {
      throw new ImportedChainConfigError(`genesis config is not usable: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Parses a geth genesis.json document. */
  static parse(text: string): ImportedChainConfig {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw new ImportedChainConfigError(`genesis is not valid JSON: ${(error as Error).message}`);
    }
    if (!isObject(doc)) throw new ImportedChainConfigError('genesis must be a JSON object');
    return new ImportedChainConfig(text, doc);
  }

  /** A Common with the rules of block `number` at `timestamp` (the fork schedule is by block, then by time). */
  commonAt(number: bigint, timestamp: bigint): Common {
    const common = this.#common.copy();
    common.setHardforkBy({ blockNumber: number, timestamp });
    return common;
  }

  /** True when the genesis block already has a base fee (London from block 0). */
  genesisHasBaseFee(): boolean {
    return this.commonAt(0n, this.genesisTimestamp).isActivatedEIP(1559);
  }

  /** The genesis alloc as module-store changesets (the state at height 0). */
  genesisChangesets(): NamedChangeset[] {
    return allocChangesets(this.alloc);
  }

  /** The genesis state as a StateView (the state block 1 runs on). */
  genesisView(): StateView {
    const values = new Map<string, Uint8Array>();
    const id = (store: string, key: Uint8Array) => `${store}/${Buffer.from(key).toString('hex')}`;
    for (const { name, pairs } of this.genesisChangesets()) {
      for (const { key, value } of pairs) if (value !== null) values.set(id(name, key), value);
    }
    return { get: (store, key) => values.get(id(store, key)) };
  }

  /** True when receipts of a block under `common` carry a status byte (EIP-658) and so a checkable receipts root. */
  static hasStatusReceipts(common: Common): boolean {
    return common.gteHardfork(Hardfork.Byzantium);
  }
}
