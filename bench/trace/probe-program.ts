/**
 * Random programs for the Probe contract's interpreter (test/fixtures/Probe.sol, `exec(bytes)`):
 * nested calls of every kind, logs, storage, reverts with reasons, panics, out-of-gas, invalid
 * opcodes, CREATE/CREATE2, SELFDESTRUCT and precompile calls. Each program is built with the
 * context it will run in (static or not, gas-bounded or not), so that failures happen where they
 * are meant to — e.g. out-of-gas only inside a frame given a bounded amount of gas — and a write
 * in a static frame only where a write-protection failure is wanted.
 */
import type { Prng } from '../../test/helpers/prng.js';

/** Op codes of Probe.exec; the values are the Solidity source's. */
export const Op = {
  log: 0x01,
  sstore: 0x02,
  sload: 0x03,
  log0: 0x04,
  bubble: 0x05,
  revertReason: 0x10,
  panicDivZero: 0x11,
  panicAssert: 0x12,
  panicOverflow: 0x13,
  outOfGas: 0x14,
  invalid: 0x15,
  customError: 0x16,
  call: 0x20,
  callcode: 0x21,
  delegatecall: 0x22,
  staticcall: 0x23,
  callWithValue: 0x24,
  create: 0x30,
  create2: 0x31,
  selfdestructChild: 0x32,
  selfdestructSelf: 0x33,
  ecrecover: 0x40,
  sha256: 0x41,
  identity: 0x42,
  modexp: 0x43,
  ripemd160: 0x44,
} as const;

/** Call targets of call ops: the executing Probe, its peer, an address without code. */
export const Target = { self: 0, peer: 1, empty: 2 } as const;

/** Child constructor modes. */
export const ChildMode = { ok: 0, revert: 1, outOfGas: 2 } as const;

/** Where a program runs. */
export interface ProgramContext {
  /** Nested call levels still allowed below this frame. */
  depthLeft: number;
  /** Inside a STATICCALL: writes fail with write protection. */
  isStatic: boolean;
  /** The frame got a bounded amount of gas, so an out-of-gas failure stays inside it. */
  gasBounded: boolean;
}

/** A generated program and the features it exercises (for naming a transaction's kind). */
export interface Program {
  bytes: number[];
  features: Set<string>;
}

const CALL_OPS = [Op.call, Op.callcode, Op.delegatecall, Op.staticcall, Op.callWithValue] as const;
const CALL_NAMES: Record<number, string> = {
  [Op.call]: 'CALL',
  [Op.callcode]: 'CALLCODE',
  [Op.delegatecall]: 'DELEGATECALL',
  [Op.staticcall]: 'STATICCALL',
  [Op.callWithValue]: 'CALL+value',
};
const PRECOMPILES = [Op.ecrecover, Op.sha256, Op.identity, Op.modexp, Op.ripemd160] as const;
const FAILURES = [Op.revertReason, Op.panicDivZero, Op.panicAssert, Op.panicOverflow, Op.invalid, Op.customError] as const;
const FAILURE_NAMES: Record<number, string> = {
  [Op.revertReason]: 'revert-reason',
  [Op.panicDivZero]: 'panic-div0',
  [Op.panicAssert]: 'panic-assert',
  [Op.panicOverflow]: 'panic-overflow',
  [Op.invalid]: 'invalid-opcode',
  [Op.customError]: 'custom-error',
  [Op.outOfGas]: 'out-of-gas',
};

/** Generates one program for `ctx`. */
export function randomProgram(rng: Prng, ctx: ProgramContext): Program {
  const out: Program = { bytes: [], features: new Set() };
  const ops = rng.range(1, 4);
  for (let k = 0; k < ops; k++) appendOp(rng, ctx, out);
  // A failing ending now and then: the frame's own failure, after whatever it did.
  if (rng.chance(0.25)) appendFailure(rng, ctx, out);
  return out;
}

function appendFailure(rng: Prng, ctx: ProgramContext, out: Program): void {
  const choices: number[] = [...FAILURES];
  if (ctx.gasBounded) choices.push(Op.outOfGas);
  if (!ctx.isStatic) choices.push(Op.selfdestructSelf);
  const op = rng.pick(choices);
  out.bytes.push(op);
  if (op === Op.selfdestructSelf) {
    out.bytes.push(rng.pick([Target.peer, Target.empty]));
    out.features.add('SELFDESTRUCT-self');
  } else {
    out.features.add(FAILURE_NAMES[op]!);
  }
}

function appendOp(rng: Prng, ctx: ProgramContext, out: Program): void {
  const roll = rng.int(100);
  if (roll < 30 && ctx.depthLeft > 0) return appendCall(rng, ctx, out);
  if (roll < 42) {
    out.bytes.push(rng.pick(PRECOMPILES));
    out.features.add('precompile');
    return;
  }
  if (roll < 50) {
    out.bytes.push(Op.sload);
    return;
  }
  // A write in a static frame is rare and deliberate: it is the write-protection case.
  if (ctx.isStatic && !rng.chance(0.1)) {
    out.bytes.push(Op.sload);
    return;
  }
  if (ctx.isStatic) out.features.add('write-protection');
  if (roll < 62) {
    out.bytes.push(Op.log);
    out.features.add('log');
  } else if (roll < 67) {
    out.bytes.push(Op.log0);
    out.features.add('log');
  } else if (roll < 77) {
    out.bytes.push(Op.sstore);
  } else if (roll < 89) {
    const op = rng.chance(0.5) ? Op.create : Op.create2;
    // An out-of-gas constructor takes 63/64 of the gas, so only inside a bounded frame.
    const mode = rng.chance(0.2) ? ChildMode.revert : ctx.gasBounded && rng.chance(0.2) ? ChildMode.outOfGas : ChildMode.ok;
    out.bytes.push(op, mode);
    out.features.add(op === Op.create ? 'CREATE' : 'CREATE2');
    if (mode !== ChildMode.ok) out.features.add(mode === ChildMode.revert ? 'create-revert' : 'create-oog');
  } else {
    out.bytes.push(Op.selfdestructChild, rng.pick([Target.self, Target.peer, Target.empty]));
    out.features.add('SELFDESTRUCT');
  }
}

function appendCall(rng: Prng, ctx: ProgramContext, out: Program): void {
  // CALL with value from a static frame is a write-protection failure: kept rare.
  const choices = ctx.isStatic && !rng.chance(0.1) ? CALL_OPS.filter((op) => op !== Op.callWithValue) : [...CALL_OPS];
  const op = rng.pick(choices);
  const target = rng.chance(0.08) ? Target.empty : rng.pick([Target.self, Target.peer]);
  const bounded = rng.chance(0.2);
  const sub = randomProgram(rng, {
    depthLeft: ctx.depthLeft - 1,
    isStatic: ctx.isStatic || op === Op.staticcall,
    gasBounded: bounded,
  });
  if (sub.bytes.length > 0xffff) throw new RangeError('sub-program longer than 65535 bytes');
  // Bounded frames get 40k–150k gas: enough for a few ops, little enough to run out.
  const gasUnits = bounded ? rng.range(8, 30) : 0;
  out.bytes.push(op, target, gasUnits, sub.bytes.length >> 8, sub.bytes.length & 0xff, ...sub.bytes);
  out.features.add(CALL_NAMES[op]!);
  if (ctx.isStatic && op === Op.callWithValue) out.features.add('write-protection');
  if (target === Target.empty) out.features.add('call-empty');
  for (const f of sub.features) out.features.add(f);
  if (rng.chance(0.3)) {
    out.bytes.push(Op.bubble);
    out.features.add('bubble');
  }
}
