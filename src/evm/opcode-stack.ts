/** How many stack items each opcode takes and leaves, for geth's stack error texts. */

/** Items an opcode pops and pushes. */
export interface StackArity {
  pops: number;
  pushes: number;
}

const FIXED: Record<number, [number, number]> = {
  0x00: [0, 0], 0x01: [2, 1], 0x02: [2, 1], 0x03: [2, 1], 0x04: [2, 1], 0x05: [2, 1], 0x06: [2, 1],
  0x07: [2, 1], 0x08: [3, 1], 0x09: [3, 1], 0x0a: [2, 1], 0x0b: [2, 1],
  0x10: [2, 1], 0x11: [2, 1], 0x12: [2, 1], 0x13: [2, 1], 0x14: [2, 1], 0x15: [1, 1], 0x16: [2, 1],
  0x17: [2, 1], 0x18: [2, 1], 0x19: [1, 1], 0x1a: [2, 1], 0x1b: [2, 1], 0x1c: [2, 1], 0x1d: [2, 1],
  0x1e: [1, 1], 0x20: [2, 1],
  0x31: [1, 1], 0x35: [1, 1], 0x37: [3, 0], 0x39: [3, 0], 0x3b: [1, 1], 0x3c: [4, 0], 0x3e: [3, 0],
  0x3f: [1, 1], 0x40: [1, 1], 0x49: [1, 1],
  0x50: [1, 0], 0x51: [1, 1], 0x52: [2, 0], 0x53: [2, 0], 0x54: [1, 1], 0x55: [2, 0], 0x56: [1, 0],
  0x57: [2, 0], 0x5b: [0, 0], 0x5c: [1, 1], 0x5d: [2, 0], 0x5e: [3, 0],
  0xf0: [3, 1], 0xf1: [7, 1], 0xf2: [7, 1], 0xf3: [2, 0], 0xf4: [6, 1], 0xf5: [4, 1], 0xfa: [6, 1],
  0xfd: [2, 0], 0xfe: [0, 0], 0xff: [1, 0],
};

/** The stack arity of `op`; opcodes that only push one value default to (0, 1). */
export function stackArity(op: number): StackArity {
  if (op >= 0x80 && op <= 0x8f) return { pops: op - 0x7f, pushes: op - 0x7e };
  if (op >= 0x90 && op <= 0x9f) return { pops: op - 0x8e, pushes: op - 0x8e };
  if (op >= 0xa0 && op <= 0xa4) return { pops: op - 0x9e, pushes: 0 };
  const fixed = FIXED[op];
  return fixed === undefined ? { pops: 0, pushes: 1 } : { pops: fixed[0], pushes: fixed[1] };
}
