/**
 * Caches @ethereumjs/evm's jump-destination analysis per code array. The interpreter scans
 * the whole code (every opcode looked up, every PUSH decoded to a bigint) each time a frame
 * first jumps — for a token contract more than the call itself costs. The analysis depends
 * only on the code and the EVM's fork, and the interpreter only reads it, so it is computed
 * once per (EVM, code array); CodeCache hands out one array per code hash, which makes the
 * cache hit across calls. If the method is missing (another @ethereumjs version) nothing is
 * patched.
 */
import { interpreterPrototype } from './interpreter-prototype.js';


/** The analysis the interpreter computes (opaque here). */
type Analysis = object;

interface InterpreterPrototype {
  _getValidJumpDestinations?: (this: { _evm: object }, code: Uint8Array) => Analysis;
}

const prototype = interpreterPrototype as InterpreterPrototype | undefined;
const analyse = prototype?._getValidJumpDestinations;

/** Whether the analysis cache is installed. */
export const jumpAnalysisCached: boolean = prototype !== undefined && analyse !== undefined;

if (prototype !== undefined && analyse !== undefined) {
  const byEvm = new WeakMap<object, WeakMap<Uint8Array, Analysis>>();
  prototype._getValidJumpDestinations = function cachedJumpDestinations(code) {
    let byCode = byEvm.get(this._evm);
    if (byCode === undefined) byEvm.set(this._evm, (byCode = new WeakMap()));
    let analysis = byCode.get(code);
    if (analysis === undefined) byCode.set(code, (analysis = analyse.call(this, code)));
    return analysis;
  };
}
