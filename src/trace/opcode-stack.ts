/** The stack arity of opcodes lives with the EVM's error texts; tracers import it from here as before. */
export { stackArity, type StackArity } from '../evm/opcode-stack.js';
