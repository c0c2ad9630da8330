/**
 * The signed transactions shared by the differential tracing test and bench:trace: two Probe
 * contracts (each the other's peer) deployed from one account, then a seeded mix of
 * interactions sent by that same account, so that both nodes see one nonce order and therefore
 * the same state, the same created addresses and the same execution. Mix: Probe programs
 * (nested calls, reverts, panics, out-of-gas, creations, self-destructs, logs, precompiles),
 * contract-creation transactions (succeeding, reverting, running out of gas), plain transfers,
 * calls with an unknown selector and out-of-gas at the top frame.
 */
import { readFileSync } from 'node:fs';
import { Prng } from '../../test/helpers/prng.js';
import { fixturePath } from '../fixture-path.js';
import { createdAddress, hex, signEip1559 } from '../node/sign.js';
import { ChildMode, Op, randomProgram } from './probe-program.js';

const PROBE_JSON = fixturePath('probe.json');

/** Fee terms of every workload transaction. */
const FEES = { maxPriorityFeePerGas: 1_000_000_000n, maxFeePerGas: 100_000_000_000n } as const;
/** Gas limit of an ordinary interaction, and of one meant to run out at the top frame. */
export const INTERACTION_GAS = 2_000_000n;
const TOP_OUT_OF_GAS_GAS = 120_000n;
/** Wei each Probe is deployed with, so value calls and self-destructs move something. */
const PROBE_ENDOWMENT = 10n ** 18n;
/** `exec(bytes)`. */
const EXEC_SELECTOR = '55f86501';

/** The compiled contracts of test/fixtures/Probe.sol. */
interface ProbeArtifacts {
  Probe: { bytecode: string };
  Child: { bytecode: string };
}

function artifacts(): ProbeArtifacts {
  return JSON.parse(readFileSync(PROBE_JSON, 'utf8')) as ProbeArtifacts;
}

/** A transaction of the workload, signed. */
export interface WorkloadTx {
  /** 0x raw transaction. */
  raw: string;
  /** What kind of interaction it is, e.g. `exec: CALL,DELEGATECALL,revert-reason`. */
  kind: string;
}

/** The account that deploys and sends everything. */
export interface WorkloadSender {
  /** 0x-prefixed 32-byte key. */
  privateKey: string;
  /** 0x address. */
  address: string;
}

/** The Probe pair's deployment and the addresses it creates. */
export interface ProbeDeployment {
  txs: WorkloadTx[];
  probeA: string;
  probeB: string;
}

/** What the generator builds. */
export interface WorkloadOptions {
  seed: number;
  count: number;
  chainId: number;
  /** Call nesting allowed below the top frame. */
  maxDepth: number;
  /** Nonce of the first interaction (after the deployment). */
  firstNonce: number;
}

function word(value: bigint): string {
  return value.toString(16).padStart(64, '0');
}

function addressWord(address: string): string {
  return address.slice(2).toLowerCase().padStart(64, '0');
}

/** ABI encoding of `exec(prog)`. */
export function execCalldata(prog: readonly number[]): Buffer {
  const body = Buffer.from(prog);
  const padded = Buffer.concat([body, Buffer.alloc((32 - (body.length % 32)) % 32)]);
  return Buffer.concat([Buffer.from(EXEC_SELECTOR + word(0x20n) + word(BigInt(body.length)), 'hex'), padded]);
}

function sign(sender: WorkloadSender, chainId: number, nonce: number, fields: { to: string | null; value: bigint; data: Uint8Array; gasLimit: bigint }): string {
  const raw = signEip1559(
    {
      chainId: BigInt(chainId),
      nonce: BigInt(nonce),
      ...FEES,
      gasLimit: fields.gasLimit,
      to: fields.to === null ? null : Buffer.from(fields.to.slice(2), 'hex'),
      value: fields.value,
      data: fields.data,
    },
    Buffer.from(sender.privateKey.slice(2), 'hex'),
  );
  return hex(raw);
}

/** Deploys Probe A (nonce n) and Probe B (nonce n + 1), each given the other's address as its peer. */
export function probeDeployment(sender: WorkloadSender, chainId: number, nonce = 0): ProbeDeployment {
  const code = artifacts().Probe.bytecode.slice(2);
  const from = Buffer.from(sender.address.slice(2), 'hex');
  const probeA = hex(createdAddress(from, BigInt(nonce)));
  const probeB = hex(createdAddress(from, BigInt(nonce + 1)));
  const deploy = (n: number, peer: string): WorkloadTx => ({
    raw: sign(sender, chainId, n, { to: null, value: PROBE_ENDOWMENT, gasLimit: 3_000_000n, data: Buffer.from(code + addressWord(peer), 'hex') }),
    kind: 'deploy Probe',
  });
  return { txs: [deploy(nonce, probeB), deploy(nonce + 1, probeA)], probeA, probeB };
}

/** Creation code of Child(mode). */
function childInit(mode: number): Buffer {
  return Buffer.from(artifacts().Child.bytecode.slice(2) + word(BigInt(mode)), 'hex');
}

/** `count` seeded interactions with the deployed Probes, signed with consecutive nonces. */
export function generateInteractions(sender: WorkloadSender, deployment: ProbeDeployment, options: WorkloadOptions): WorkloadTx[] {
  const rng = new Prng(options.seed);
  const out: WorkloadTx[] = [];
  for (let k = 0; k < options.count; k++) {
    const nonce = options.firstNonce + k;
    const tx = (to: string | null, value: bigint, data: Uint8Array, gasLimit: bigint, kind: string) =>
      out.push({ raw: sign(sender, options.chainId, nonce, { to, value, data, gasLimit }), kind });
    const roll = rng.int(100);
    if (roll < 80) {
      const program = randomProgram(rng, { depthLeft: options.maxDepth, isStatic: false, gasBounded: false });
      const to = rng.chance(0.5) ? deployment.probeA : deployment.probeB;
      const value = rng.chance(0.3) ? BigInt(rng.range(1, 1000)) : 0n;
      tx(to, value, execCalldata(program.bytes), INTERACTION_GAS, `exec: ${[...program.features].sort().join(',') || 'plain'}`);
    } else if (roll < 86) {
      const mode = rng.pick([ChildMode.ok, ChildMode.ok, ChildMode.revert, ChildMode.outOfGas]);
      const gas = mode === ChildMode.outOfGas ? 300_000n : INTERACTION_GAS;
      tx(null, 0n, childInit(mode), gas, `create tx: Child mode ${mode}`);
    } else if (roll < 90) {
      const recipient = `0x${(0xe0a0_0000 + k).toString(16).padStart(40, '0')}`;
      tx(recipient, 12_345n, new Uint8Array(), 21_000n, 'transfer');
    } else if (roll < 94) {
      tx(rng.chance(0.5) ? deployment.probeA : deployment.probeB, 0n, Buffer.from('deadbeef', 'hex'), INTERACTION_GAS, 'unknown selector');
    } else {
      tx(deployment.probeA, 0n, execCalldata([Op.log, Op.sstore, Op.outOfGas]), TOP_OUT_OF_GAS_GAS, 'exec: top-level out-of-gas');
    }
  }
  return out;
}
