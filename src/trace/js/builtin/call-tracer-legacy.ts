/**
 * `callTracerLegacy`: the call tree built from opcode steps alone (the JavaScript call
 * tracer geth shipped before its native callTracer). Frames are opened on CALL-family and
 * CREATE steps, get their gas from the callee's first step, and are closed on the first
 * step back in the caller, which also shows the call's result on the stack. A call's gas
 * used is its gas less what its last step left (so it does not depend on how a CALL step's
 * cost counts the gas handed on); a creation's also counts the code deposit. Calls that never
 * started keep no gas; a zero result without a recorded error reads `internal failure`;
 * precompile calls are not shown.
 */
export const CALL_TRACER_LEGACY = String.raw`{
  frames: [{}],
  starting: false,
  /** Gas left after the last step seen at each depth. */
  leftAt: [],

  hex: function (n) { return '0x' + bigInt(n).toString(16); },

  close: function (frame, parent) {
    if (frame.gas !== undefined) frame.gas = this.hex(frame.gas);
    delete frame.gasIn; delete frame.gasCost; delete frame.outOff; delete frame.outLen;
    if (parent.calls === undefined) parent.calls = [];
    parent.calls.push(frame);
  },

  returned: function (log, db) {
    var frame = this.frames.pop();
    var outcome = log.stack.peek(0);
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      frame.gasUsed = this.hex(frame.gasIn - frame.gasCost - log.getGas());
      if (!outcome.isZero()) {
        var created = toAddress(outcome.toString(16));
        frame.to = toHex(created);
        frame.output = toHex(db.getCode(created));
      } else if (frame.error === undefined) {
        frame.error = 'internal failure';
      }
    } else {
      if (frame.gas !== undefined) frame.gasUsed = this.hex(frame.gas - this.leftAt[this.frames.length + 1]);
      if (!outcome.isZero()) {
        frame.output = toHex(log.memory.slice(frame.outOff, frame.outOff + frame.outLen));
      } else if (frame.error === undefined) {
        frame.error = 'internal failure';
      }
    }
    this.close(frame, this.frames[this.frames.length - 1]);
  },

  open: function (log, name) {
    var from = toHex(log.contract.getAddress());
    if (name === 'CREATE' || name === 'CREATE2') {
      var start = log.stack.peek(1).valueOf(), size = log.stack.peek(2).valueOf();
      this.frames.push({
        type: name, from: from, input: toHex(log.memory.slice(start, start + size)),
        gasIn: log.getGas(), gasCost: log.getCost(), value: this.hex(log.stack.peek(0)),
      });
      this.starting = true;
      return;
    }
    var to = toAddress(log.stack.peek(1).toString(16));
    if (isPrecompiled(to)) return;
    var withValue = name === 'CALL' || name === 'CALLCODE';
    var args = withValue ? 3 : 2;
    var inStart = log.stack.peek(args).valueOf(), inSize = log.stack.peek(args + 1).valueOf();
    var frame = {
      type: name, from: from, to: toHex(to), input: toHex(log.memory.slice(inStart, inStart + inSize)),
      gasIn: log.getGas(), gasCost: log.getCost(),
      outOff: log.stack.peek(args + 2).valueOf(), outLen: log.stack.peek(args + 3).valueOf(),
    };
    if (withValue) frame.value = this.hex(log.stack.peek(2));
    this.frames.push(frame);
    this.starting = true;
  },

  step: function (log, db) {
    if (log.getError() !== undefined) { this.fault(log, db); return; }
    var depth = log.getDepth();
    this.leftAt[depth] = log.getGas() - log.getCost();
    if (this.starting) {
      if (depth >= this.frames.length) this.frames[this.frames.length - 1].gas = log.getGas();
      this.starting = false;
    }
    if (depth === this.frames.length - 1 && this.frames.length > 1) this.returned(log, db);
    var name = log.op.toString();
    switch (name) {
      case 'CREATE': case 'CREATE2': case 'CALL': case 'CALLCODE': case 'DELEGATECALL': case 'STATICCALL':
        this.open(log, name);
        return;
      case 'SELFDESTRUCT':
        var self = log.contract.getAddress();
        this.close({
          type: name, from: toHex(self), to: toHex(toAddress(log.stack.peek(0).toString(16))), input: '0x',
          value: this.hex(db.getBalance(self)),
        }, this.frames[this.frames.length - 1]);
        return;
      case 'REVERT':
        this.frames[this.frames.length - 1].error = 'execution reverted';
        return;
    }
  },

  fault: function (log, db) {
    var frame = this.frames[this.frames.length - 1];
    if (frame.error !== undefined) return;
    if (this.frames.length === 1) { frame.error = log.getError(); return; }
    this.frames.pop();
    frame.error = log.getError();
    if (frame.gas !== undefined) frame.gasUsed = this.hex(frame.gas);
    this.close(frame, this.frames[this.frames.length - 1]);
  },

  order: function (frame) {
    var keys = ['type', 'from', 'to', 'value', 'gas', 'gasUsed', 'input', 'output', 'error', 'calls'];
    var out = {};
    for (var i = 0; i < keys.length; i++) {
      var value = frame[keys[i]];
      if (value === undefined) continue;
      out[keys[i]] = keys[i] === 'calls' ? value.map(this.order, this) : value;
    }
    return out;
  },

  result: function (ctx, db) {
    var top = this.frames[0];
    var out = {
      type: ctx.type, from: toHex(ctx.from), to: toHex(ctx.to), value: this.hex(ctx.value),
      gas: this.hex(ctx.gas), gasUsed: this.hex(ctx.gasUsed), input: toHex(ctx.input), output: toHex(ctx.output),
      error: top.error !== undefined ? top.error : ctx.error, calls: top.calls,
    };
    if (out.error !== undefined && (out.error !== 'execution reverted' || out.output === '0x')) delete out.output;
    return this.order(out);
  },
}`;
