/** Small JavaScript tracers geth ships by name: an opcode counter and a tracer that records nothing. */

/** `opcountTracer`: the number of opcodes the transaction executed. */
export const OPCOUNT_TRACER = String.raw`{
  count: 0,
  step: function (log, db) { this.count++; },
  fault: function (log, db) {},
  result: function (ctx, db) { return this.count; },
}`;

/** `noopTracerLegacy`: calls every hook and returns an empty object. */
export const NOOP_TRACER_LEGACY = String.raw`{
  step: function (log, db) {},
  fault: function (log, db) {},
  enter: function (frame) {},
  exit: function (frameResult) {},
  result: function (ctx, db) { return {}; },
}`;

/** `unigramTracer`: how many times each opcode ran, by name. */
export const UNIGRAM_TRACER = String.raw`{
  counts: {},
  step: function (log, db) {
    var name = log.op.toString();
    this.counts[name] = (this.counts[name] || 0) + 1;
  },
  fault: function (log, db) {},
  result: function (ctx, db) { return this.counts; },
}`;
