/**
 * RETURNDATACOPY failing as geth's does. @ethereumjs checks the return-data bounds inside
 * the opcode's gas function and calls an overrun `out of gas`, before the step is even seen;
 * geth charges memory and copy gas, begins the step, and then fails it with `return data out
 * of bounds`. Either way the frame fails and keeps none of its gas, so the outcome is the
 * same: only the error text and the step a trace shows differ. This replaces the opcode with
 * @ethereumjs's own gas and copy logic in geth's order, failing with the EVM's `value out of
 * range`, which the error mapping (errors.ts) words as geth does.
 */
import { Hardfork, type Common } from '@ethereumjs/common';
import { EVMError, getOpcodesForHF, paramsEVM, type EVMOpts } from '@ethereumjs/evm';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>;
type RunState = Parameters<AddOpcode['logicFunction']>[0];
type GasFunction = NonNullable<AddOpcode['gasFunction']>;

const RETURNDATACOPY = 0x3e;
/** Larger than any return data, so @ethereumjs's own gas function never sees an overrun. */
const UNBOUNDED = 2n ** 256n;

/** Whether RETURNDATACOPY's operands on the stack reach past the last call's return data. */
function outOfBounds(runState: RunState): boolean {
  const [, offset, length] = runState.stack.peek(3) as [bigint, bigint, bigint];
  return offset + length > runState.interpreter.getReturnDataSize();
}

/** The custom-opcode entry that makes an EVM for `common` fail RETURNDATACOPY overruns as geth does. */
export function returnDataBoundsOpcode(common: Common): CustomOpcode {
  // The opcode table reads the EVM's gas parameters, which an EVM adds to its Common when made;
  // a copy is given them here so the caller's Common is left as it was.
  const rules = common.copy();
  rules.updateParams(paramsEVM);
  const original = getOpcodesForHF(rules).opcodeMap[RETURNDATACOPY];
  if (original === undefined || original.opcodeInfo.name !== 'RETURNDATACOPY') throw new Error('RETURNDATACOPY is not defined for this hardfork');
  // A custom opcode is always run as asynchronous, so its gas function may be too.
  const gasFunction: GasFunction = async (runState, gas, c) => {
    if (!outOfBounds(runState)) return original.gasHandler(runState, gas, c);
    // The library's memory and copy cost, computed on a view that sees no overrun; the
    // memory size it records is copied back, as it would have been recorded in place.
    const view = Object.create(runState, { interpreter: { value: { getReturnDataSize: () => UNBOUNDED } } }) as RunState;
    const cost = await original.gasHandler(view, gas, c);
    runState.memoryWordCount = view.memoryWordCount;
    runState.highestMemCost = view.highestMemCost;
    return cost;
  };
  return {
    opcode: RETURNDATACOPY,
    opcodeName: 'RETURNDATACOPY',
    baseFee: Number(original.opcodeInfo.fee),
    gasFunction,
    logicFunction: (runState, c) => {
      if (outOfBounds(runState)) throw new EVMError(EVMError.errorMessages.OUT_OF_RANGE);
      return original.opHandler(runState, c);
    },
  };
}

/** Options per Common and hardfork: building the opcode table costs more than a block of an imported chain. */
const optionsCache = new WeakMap<Common, Map<string, EVMOpts>>();

/**
 * @ethereumjs EVM options every VM of the node is made with (geth's RETURNDATACOPY failure).
 * Before Byzantium there is no RETURNDATACOPY, and none is added.
 */
export function gethEvmOptions(common: Common): EVMOpts {
  if (!common.gteHardfork(Hardfork.Byzantium)) return {};
  let perFork = optionsCache.get(common);
  if (perFork === undefined) optionsCache.set(common, (perFork = new Map()));
  const key = `${common.hardfork()}/${common.eips().join(',')}`;
  let options = perFork.get(key);
  if (options === undefined) perFork.set(key, (options = { customOpcodes: [returnDataBoundsOpcode(common)] }));
  return options;
}
