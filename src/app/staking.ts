/**
 * The `staking` store's validator records, written at genesis: one record per genesis
 * validator under the Cosmos SDK's validator key layout (0x21 ‖ length ‖ operator address
 * bytes), so `stratad query staking validator <valoper>` answers from the node's own state.
 * A validator's operator address is its 20-byte consensus address under the `stratavaloper`
 * bech32 prefix (this chain has no separate operator accounts).
 */
import { bech32 } from '@scure/base';

import type { KVPair } from '../store/index.js';
import { GenesisError } from './errors.js';
import type { GenesisValidator } from './genesis.js';

/** The bech32 prefix of operator addresses. */
export const VALOPER_PREFIX = 'stratavaloper';
/** The Cosmos SDK's prefix of validator records in the staking store. */
const VALIDATOR_RECORD_PREFIX = 0x21;
/** Tokens per unit of voting power (the Cosmos SDK's default power reduction). */
const POWER_REDUCTION = 1_000_000n;
/** The Cosmos SDK's type URL of an ed25519 consensus public key. */
export const ED25519_PUBKEY_TYPE_URL = '/cosmos.crypto.ed25519.PubKey';

/** A validator as the staking store records it (the Cosmos SDK's Validator, JSON field names). */
export interface ValidatorRecord {
  operator_address: string;
  consensus_pubkey: { '@type': string; key: string };
  jailed: boolean;
  status: 'BOND_STATUS_BONDED' | 'BOND_STATUS_UNBONDING' | 'BOND_STATUS_UNBONDED';
  tokens: string;
  delegator_shares: string;
  description: { moniker: string; identity: string; website: string; security_contact: string; details: string };
  unbonding_height: string;
  unbonding_time: string;
  min_self_delegation: string;
  /** The validator's voting power in consensus (tokens / 10^6). */
  voting_power: string;
}

/** An operator address that is not `stratavaloper1…` bech32 of 20 bytes. */
export class OperatorAddressError extends GenesisError {}

/** The `stratavaloper1…` operator address of a 20-byte address. */
export function operatorAddress(address: Uint8Array): string {
  return bech32.encode(VALOPER_PREFIX, bech32.toWords(address));
}

/** The 20 bytes of a `stratavaloper1…` operator address. */
export function operatorAddressBytes(text: string): Uint8Array {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(text as `${string}1${string}`);
  } catch (error) {
    throw new OperatorAddressError(`"${text}" is not a bech32 operator address (${(error as Error).message}); pass ${VALOPER_PREFIX}1…`);
  }
  if (decoded.prefix !== VALOPER_PREFIX) {
    throw new OperatorAddressError(`"${text}" has prefix "${decoded.prefix}", not "${VALOPER_PREFIX}": pass a validator operator address`);
  }
  const bytes = bech32.fromWords(decoded.words);
  if (bytes.length !== 20) throw new OperatorAddressError(`"${text}" holds ${bytes.length} bytes, not 20`);
  return bytes;
}

/** The staking store key of the validator whose operator address bytes are `operator`. */
export function validatorRecordKey(operator: Uint8Array): Uint8Array {
  return Uint8Array.from([VALIDATOR_RECORD_PREFIX, operator.length, ...operator]);
}

/** The bonded record of a genesis validator. */
export function genesisValidatorRecord(validator: GenesisValidator): ValidatorRecord {
  const tokens = BigInt(validator.power) * POWER_REDUCTION;
  return {
    operator_address: operatorAddress(Buffer.from(validator.address, 'hex')),
    consensus_pubkey: { '@type': ED25519_PUBKEY_TYPE_URL, key: validator.pub_key.value },
    jailed: false,
    status: 'BOND_STATUS_BONDED',
    tokens: tokens.toString(),
    delegator_shares: `${tokens}.000000000000000000`,
    description: { moniker: validator.name ?? '', identity: '', website: '', security_contact: '', details: '' },
    unbonding_height: '0',
    unbonding_time: '1970-01-01T00:00:00Z',
    min_self_delegation: '1',
    voting_power: String(validator.power),
  };
}

/** The staking store pairs of the genesis validators' records. */
export function validatorRecordPairs(validators: readonly GenesisValidator[]): KVPair[] {
  return validators.map((v) => ({
    key: validatorRecordKey(Buffer.from(v.address, 'hex')),
    value: new TextEncoder().encode(JSON.stringify(genesisValidatorRecord(v))),
  }));
}

/** Decodes a stored validator record. */
export function decodeValidatorRecord(value: Uint8Array): ValidatorRecord {
  return JSON.parse(Buffer.from(value).toString('utf8')) as ValidatorRecord;
}
