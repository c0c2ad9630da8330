/**
 * Validator and node keys in CometBFT's JSON formats, and a block signer that refuses to
 * sign two different blocks at one height, even across restarts.
 *
 *   priv_validator_key.json   {address, pub_key, priv_key}; address = first 20 bytes of
 *                             sha256(pubkey), upper hex; priv_key = base64(seed ‖ pubkey)
 *   node_key.json             {priv_key}; node id = lower hex of first 20 bytes of sha256(pubkey)
 *   priv_validator_state.json {height (string), round, step, signature?, signbytes?}
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ed25519PublicKeyOf, signBlockHash } from './block.js';
import { writeFileDurably, writeFileDurablyAsync } from './durable-file.js';
import { sha256 } from './hash.js';

export const PUB_KEY_TYPE = 'tendermint/PubKeyEd25519';
export const PRIV_KEY_TYPE = 'tendermint/PrivKeyEd25519';
/** The consensus step a block signature is recorded under (CometBFT's precommit). */
export const SIGN_STEP = 3;

/** An ed25519 key pair. */
export interface Ed25519Key {
  /** 32-byte private seed. */
  seed: Buffer;
  /** 32-byte public key. */
  publicKey: Buffer;
}

/** The validator's signing key with its consensus address. */
export interface ValidatorKey extends Ed25519Key {
  /** Upper-case hex of the first 20 bytes of sha256(publicKey). */
  address: string;
}

/** The node's p2p identity key. */
export interface NodeKey extends Ed25519Key {
  /** Lower-case hex of the first 20 bytes of sha256(publicKey). */
  id: string;
}

/** What priv_validator_state.json records: the last height/round/step signed. */
export interface SignState {
  height: number;
  round: number;
  step: number;
  /** Signature released for that height (base64 in the file). */
  signature?: Buffer;
  /** The bytes signed at that height (the block hash). */
  signBytes?: Buffer;
}

/** A key file is missing, unreadable or malformed; the message names the file and the fix. */
export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

/** What an operator does about a refused double sign (the spec's remedy). */
const DOUBLE_SIGN_REMEDY =
  'stop the node immediately: this is possible double signing; check that no other machine runs with this validator key';

/** Signing would sign a second, different block at a height already signed (or a lower one). */
export class DoubleSignError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DoubleSignError';
  }
}

/** BlockSigner.sign was called while an earlier call was still recording its signature. */
export class OverlappingSignError extends Error {
  constructor() {
    super('BlockSigner.sign was called again before the previous signature was recorded; serialise the calls');
    this.name = 'OverlappingSignError';
  }
}

/** The ed25519 key pair of a 32-byte seed. */
export function ed25519Key(seed: Uint8Array): Ed25519Key {
  return { seed: Buffer.from(seed), publicKey: ed25519PublicKeyOf(seed) };
}

/** Upper-hex validator address of an ed25519 public key. */
export function validatorAddress(publicKey: Uint8Array): string {
  return sha256(publicKey).subarray(0, 20).toString('hex').toUpperCase();
}

/** Lower-hex node id of an ed25519 public key. */
export function nodeId(publicKey: Uint8Array): string {
  return sha256(publicKey).subarray(0, 20).toString('hex');
}

/** A validator key from `seed` (random when absent). */
export function validatorKey(seed: Uint8Array = randomBytes(32)): ValidatorKey {
  const key = ed25519Key(seed);
  return { ...key, address: validatorAddress(key.publicKey) };
}

/** A node key from `seed` (random when absent). */
export function nodeKey(seed: Uint8Array = randomBytes(32)): NodeKey {
  const key = ed25519Key(seed);
  return { ...key, id: nodeId(key.publicKey) };
}

function privKeyJson(key: Ed25519Key): { type: string; value: string } {
  return { type: PRIV_KEY_TYPE, value: Buffer.concat([key.seed, key.publicKey]).toString('base64') };
}

function readJson(path: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KeyFileError(`cannot read the ${what} ${path} (${(error as Error).message}); run \`stratad init\` to create it`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new KeyFileError(`the ${what} ${path} is not a JSON object; restore it from a backup`);
}

function seedFromPrivKey(value: unknown, path: string): Buffer {
  const field = value as { type?: unknown; value?: unknown } | undefined;
  if (!field || field.type !== PRIV_KEY_TYPE || typeof field.value !== 'string') {
    throw new KeyFileError(`${path}: priv_key must be {"type": "${PRIV_KEY_TYPE}", "value": <base64>}`);
  }
  const bytes = Buffer.from(field.value, 'base64');
  if (bytes.length !== 64) throw new KeyFileError(`${path}: priv_key must hold 64 bytes (seed and public key), got ${bytes.length}`);
  const seed = bytes.subarray(0, 32);
  if (!ed25519PublicKeyOf(seed).equals(bytes.subarray(32))) {
    throw new KeyFileError(`${path}: priv_key's public half does not match its seed; the file is damaged`);
  }
  return Buffer.from(seed);
}

/** priv_validator_key.json text for `key`. */
export function validatorKeyJson(key: ValidatorKey): string {
  const json = {
    address: key.address,
    pub_key: { type: PUB_KEY_TYPE, value: key.publicKey.toString('base64') },
    priv_key: privKeyJson(key),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** Writes priv_validator_key.json (mode 0600). */
export function writeValidatorKey(path: string, key: ValidatorKey): void {
  writeFileDurably(path, validatorKeyJson(key));
}

/** Reads priv_validator_key.json, checking the address and public key against the seed. */
export function loadValidatorKey(path: string): ValidatorKey {
  const json = readJson(path, 'validator key');
  const key = validatorKey(seedFromPrivKey(json.priv_key, path));
  if (json.address !== key.address) throw new KeyFileError(`${path}: address does not match the key; the file is damaged`);
  const pub = json.pub_key as { value?: unknown } | undefined;
  if (pub?.value !== key.publicKey.toString('base64')) throw new KeyFileError(`${path}: pub_key does not match priv_key; the file is damaged`);
  return key;
}

/** Writes node_key.json (mode 0600). */
export function writeNodeKey(path: string, key: NodeKey): void {
  writeFileDurably(path, `${JSON.stringify({ priv_key: privKeyJson(key) }, null, 2)}\n`);
}

/** Reads node_key.json. */
export function loadNodeKey(path: string): NodeKey {
  return nodeKey(seedFromPrivKey(readJson(path, 'node key').priv_key, path));
}

/** priv_validator_state.json text as CometBFT writes it. */
export function signStateJson(state: SignState): string {
  const json: Record<string, unknown> = { height: String(state.height), round: state.round, step: state.step };
  if (state.signature) json.signature = state.signature.toString('base64');
  if (state.signBytes) json.signbytes = state.signBytes.toString('hex').toUpperCase();
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** Writes priv_validator_state.json durably (synced before returning). */
export function writeSignState(path: string, state: SignState): void {
  writeFileDurably(path, signStateJson(state));
}

/** Reads priv_validator_state.json. */
export function loadSignState(path: string): SignState {
  const json = readJson(path, 'validator state');
  const height = Number(json.height);
  if (typeof json.height !== 'string' || !Number.isSafeInteger(height) || height < 0) {
    throw new KeyFileError(`${path}: height must be a decimal string; restore the file from a backup`);
  }
  const state: SignState = { height, round: Number(json.round ?? 0), step: Number(json.step ?? 0) };
  if (typeof json.signature === 'string') state.signature = Buffer.from(json.signature, 'base64');
  if (typeof json.signbytes === 'string') state.signBytes = Buffer.from(json.signbytes, 'hex');
  return state;
}

/**
 * Signs block hashes with the validator key, at most one block per height. The state file
 * is synced before a signature is returned, so a crash cannot forget a released signature.
 */
export class BlockSigner {
  private constructor(
    readonly key: ValidatorKey,
    private readonly statePath: string,
    private state: SignState,
  ) {}

  /** True while a signature's state is being synced. */
  private signing = false;

  /** Loads the key and the last signed state. */
  static open(keyPath: string, statePath: string): BlockSigner {
    return new BlockSigner(loadValidatorKey(keyPath), statePath, loadSignState(statePath));
  }

  /** Last height signed (0 = none). */
  get lastHeight(): number {
    return this.state.height;
  }

  /**
   * The signature of `hash` for block `height`, once the state file holding it is synced.
   * Re-signing the same hash at the last height returns the recorded signature; a different
   * hash there, or a lower height, is refused. Calls must not overlap (the producer's blocks
   * are serialised): each decides against the state the one before it wrote.
   */
  async sign(height: number, hash: Uint8Array): Promise<Buffer> {
    if (this.signing) throw new OverlappingSignError();
    const last = this.state;
    if (height < last.height) {
      throw new DoubleSignError(`Duplicate signature: refusing to sign height ${height}: height ${last.height} was already signed; ${DOUBLE_SIGN_REMEDY}`);
    }
    if (height === last.height && last.height > 0) {
      if (last.signBytes && last.signature && last.signBytes.equals(hash)) return last.signature;
      throw new DoubleSignError(
        `Duplicate signature: refusing to sign a second block at height ${height}: a different block was already signed there; ${DOUBLE_SIGN_REMEDY}`,
      );
    }
    const signature = signBlockHash(hash, this.key.seed);
    const next: SignState = { height, round: 0, step: SIGN_STEP, signature, signBytes: Buffer.from(hash) };
    this.signing = true;
    try {
      await writeFileDurablyAsync(this.statePath, signStateJson(next));
    } finally {
      this.signing = false;
    }
    this.state = next;
    return signature;
  }
}
