/** The tracer hooks and the records the EVM bridge hands to them (geth's live-tracing model). */

import type { Hex } from '../util/hex.js';
import type { RawJson } from '../util/raw-json.js';

export type { Hex };

/**
 * A value that encodes to JSON losslessly; object key order is the output order. A RawJson is
 * JSON text already (the struct logger's answer): encodeJson (util/raw-json.ts) splices it in.
 */
export type JsonValue = string | number | boolean | null | RawJson | JsonValue[] | { [key: string]: JsonValue };

/** Frame kinds, spelled as geth's callTracer prints them. */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

/** Read access to the state the transaction runs on (live: reflects execution so far). */
export interface StateReader {
  /** Whether the account exists in the state trie. */
  exists(address: Hex): Promise<boolean>;
  balance(address: Hex): Promise<bigint>;
  nonce(address: Hex): Promise<bigint>;
  /** The account's code; empty when it has none. */
  code(address: Hex): Promise<Uint8Array>;
  /** The 32-byte value of `slot`. */
  storage(address: Hex, slot: Hex): Promise<Hex>;
}

/** Chain rules a tracer needs to reproduce geth's output at the transaction's fork. */
export interface TraceRules {
  /** Whether `address` is a precompile at this fork. */
  isPrecompile(address: Hex): boolean;
  /** EIP-7702 delegations are honoured (Prague and later). */
  prague: boolean;
}

/** What a tracer learns before the transaction buys its gas. */
export interface TxStart {
  from: Hex;
  /** Recipient; undefined for a contract creation. */
  to: Hex | undefined;
  /** The address a creation transaction deploys to. */
  createdAddress: Hex | undefined;
  nonce: bigint;
  gasLimit: bigint;
  /** The price per gas the sender pays (for EIP-1559 fees: min(fee cap, base fee + tip)). */
  gasPrice: bigint;
  value: bigint;
  input: Uint8Array;
  coinbase: Hex;
  /** EIP-7702 authorities whose signatures recover. */
  authorities: Hex[];
  /** Where the transaction sits in a mined block; absent for a call. */
  block: { number: bigint; hash: Hex | undefined; txIndex: number | undefined; txHash: Hex | undefined };
  rules: TraceRules;
  state: StateReader;
}

/** A frame being entered (geth's OnEnter). `depth` is 0 for the transaction's own frame. */
export interface FrameStart {
  depth: number;
  type: FrameType;
  from: Hex;
  /** Callee, code address for CALLCODE/DELEGATECALL; undefined for CREATE/CREATE2 (see FrameEnd). */
  to: Hex | undefined;
  input: Uint8Array;
  gas: bigint;
  /** Undefined for STATICCALL. */
  value: bigint | undefined;
}

/** A frame ending (geth's OnExit). */
export interface FrameEnd {
  depth: number;
  output: Uint8Array;
  gasUsed: bigint;
  /** geth's error text, e.g. `execution reverted`, `out of gas`. */
  error: string | undefined;
  reverted: boolean;
  /** The address a CREATE/CREATE2 frame deployed to (or tried to). */
  createdAddress: Hex | undefined;
}

/** One opcode about to execute. `depth` is the frame depth (0 = top frame). */
export interface OpcodeStep {
  pc: number;
  op: number;
  /** geth's name for the opcode (`DIFFICULTY` for 0x44, `opcode 0xc not defined` for an unknown byte). */
  opName: string;
  /** Gas left before the opcode. */
  gas: bigint;
  /** What the opcode charges (for the CALL family including the gas handed to the callee). */
  cost: bigint;
  depth: number;
  /** Bottom to top. */
  stack: readonly bigint[];
  /** Memory before the opcode's own expansion. */
  memory: Uint8Array;
  /** The account whose storage the frame uses (the caller's for DELEGATECALL/CALLCODE). */
  address: Hex;
  /** The transaction's gas refund counter before the opcode. */
  refund: bigint;
  /** What the frame's last completed sub-call or create returned (RETURNDATA). */
  returnData: Uint8Array;
  /** The running frame as geth's `contract` object sees it. */
  contract: FrameContract;
  state: StateReader;
}

/** The contract a frame runs: who called it, with what value and input, and whose code. */
export interface FrameContract {
  caller: Hex;
  address: Hex;
  /** The account whose code runs (differs from `address` for DELEGATECALL/CALLCODE). */
  codeAddress: Hex;
  value: bigint;
  input: Uint8Array;
}

/** A log the EVM appended. `index` is its index in the block (the receipt's logIndex): the block's earlier logs plus this transaction's surviving ones before it. */
export interface TraceLog {
  depth: number;
  address: Hex;
  topics: Hex[];
  data: Uint8Array;
  index: number;
}

/** What a tracer learns after the transaction (geth's OnTxEnd with the receipt). */
export interface TxEnd {
  /** Receipt gas: intrinsic + execution − refund (and the EIP-7623 floor). */
  gasUsed: bigint;
  state: StateReader;
}

/** A tracer: optional hooks, called in execution order, and its JSON result. */
export interface Tracer {
  onTxStart?(tx: TxStart): void | Promise<void>;
  onEnter?(frame: FrameStart): void;
  onExit?(frame: FrameEnd): void;
  onOpcode?(step: OpcodeStep): void | Promise<void>;
  /**
   * Before each opcode, for a tracer with neither onOpcode nor onFault (no step is built for
   * it then): a wrapper's chance to stop the run at its deadline or yield.
   */
  onTick?(): void | Promise<void>;
  /** The opcode `step` failed with geth's error text (after its onOpcode). */
  onFault?(step: OpcodeStep, error: string): void | Promise<void>;
  onLog?(log: TraceLog): void;
  onTxEnd?(end: TxEnd): void | Promise<void>;
  /** The tracer's output, shaped and ordered as geth prints it. */
  result(): JsonValue;
}

/** Whether `tracer` reads steps; one that does not (callTracer, 4byteTracer) is given none, only onTick. */
export function looksAtOpcodes(tracer: Tracer): boolean {
  return tracer.onOpcode !== undefined || tracer.onFault !== undefined;
}
