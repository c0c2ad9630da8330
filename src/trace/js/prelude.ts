/**
 * The JavaScript evaluated in every tracer context before the tracer itself: geth's global
 * helpers (bigInt, toHex, toWord, toAddress, toContract, toContract2, isPrecompiled, slice)
 * and the `log`, `db`, `frame` and `ctx` objects. It takes the host functions from a
 * temporary global, removes that global, and evaluates to the driver the host calls.
 *
 * `log` and `db` are created once per context; each step only updates a few numbers, and
 * stack, memory and contract data are fetched from the host when the tracer asks.
 */
export const PRELUDE_FILENAME = '<prelude>';

/** The driver functions the prelude evaluates to. */
export const DRIVER_METHODS = ['step', 'fault', 'enter', 'exit', 'result', 'setup'] as const;

/** Name of the temporary global that carries the host functions into the prelude. */
export const HOST_GLOBAL = '__tracerHost';

export const PRELUDE_SOURCE = String.raw`(function () {
'use strict';
var global = globalThis;
var host = global.__tracerHost;
delete global.__tracerHost;

function fail(message) {
  var error = new Error(message);
  error.name = 'HostError';
  throw error;
}

// ---- bigInt: BigInteger.js's interface over the engine's native BigInt ----
function BigInteger(value) { this.value = value; }

function parseDigits(text, radix) {
  var negative = false;
  var s = text.trim();
  if (s[0] === '-') { negative = true; s = s.slice(1); } else if (s[0] === '+') { s = s.slice(1); }
  var value;
  if (radix === 16 && (s.slice(0, 2) === '0x' || s.slice(0, 2) === '0X')) s = s.slice(2);
  if (s.length === 0) fail('Invalid integer: ' + text);
  var prefix = radix === 16 ? '0x' : radix === 10 ? '' : radix === 2 ? '0b' : radix === 8 ? '0o' : undefined;
  if (prefix !== undefined && s[0] !== '-' && s[0] !== '+' && s.trim() === s) {
    // The engine's own parser rejects what is not a number in this radix.
    try { value = BigInt(prefix + s); } catch (e) { fail('Invalid integer: ' + text); }
  } else {
    var big = BigInt(radix);
    value = 0n;
    for (var i = 0; i < s.length; i++) {
      var digit = parseInt(s[i], radix);
      if (isNaN(digit)) fail('Invalid integer: ' + text);
      value = value * big + BigInt(digit);
    }
  }
  return negative ? -value : value;
}

function toBig(x, base) {
  if (x instanceof BigInteger) return x.value;
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number') {
    if (!isFinite(x)) fail('Invalid integer: ' + x);
    return BigInt(Math.trunc(x));
  }
  if (x === undefined || x === null) return 0n;
  return parseDigits(String(x), base === undefined ? 10 : Number(base));
}

function bigInt(x, base) {
  if (x instanceof BigInteger && base === undefined) return x;
  return new BigInteger(toBig(x, base));
}

var proto = BigInteger.prototype;
function binary(names, op) {
  var f = function (other) { return new BigInteger(op(this.value, toBig(other))); };
  for (var i = 0; i < names.length; i++) proto[names[i]] = f;
}
function predicate(names, op) {
  var f = function (other) { return op(this.value, toBig(other)); };
  for (var i = 0; i < names.length; i++) proto[names[i]] = f;
}
binary(['add', 'plus'], function (a, b) { return a + b; });
binary(['subtract', 'minus'], function (a, b) { return a - b; });
binary(['multiply', 'times'], function (a, b) { return a * b; });
binary(['divide', 'over'], function (a, b) { if (b === 0n) fail('Cannot divide by zero'); return a / b; });
binary(['mod', 'remainder'], function (a, b) { if (b === 0n) fail('Cannot divide by zero'); return a % b; });
binary(['and'], function (a, b) { return a & b; });
binary(['or'], function (a, b) { return a | b; });
binary(['xor'], function (a, b) { return a ^ b; });
binary(['pow'], function (a, b) { return b < 0n ? 0n : a ** b; });
binary(['shiftLeft'], function (a, b) { return b >= 0n ? a << b : a >> -b; });
binary(['shiftRight'], function (a, b) { return b >= 0n ? a >> b : a << -b; });
proto.modPow = function (exp, mod) {
  var e = toBig(exp), m = toBig(mod), base = ((this.value % m) + m) % m, out = 1n;
  while (e > 0n) { if (e & 1n) out = (out * base) % m; base = (base * base) % m; e >>= 1n; }
  return new BigInteger(out);
};
predicate(['equals', 'eq'], function (a, b) { return a === b; });
predicate(['notEquals', 'neq'], function (a, b) { return a !== b; });
predicate(['greater', 'gt'], function (a, b) { return a > b; });
predicate(['greaterOrEquals', 'geq'], function (a, b) { return a >= b; });
predicate(['lesser', 'lt'], function (a, b) { return a < b; });
predicate(['lesserOrEquals', 'leq'], function (a, b) { return a <= b; });
predicate(['isDivisibleBy'], function (a, b) { return b !== 0n && a % b === 0n; });
proto.compare = proto.compareTo = function (other) {
  var b = toBig(other);
  return this.value === b ? 0 : this.value > b ? 1 : -1;
};
proto.compareAbs = function (other) {
  var a = this.value < 0n ? -this.value : this.value, b = toBig(other);
  if (b < 0n) b = -b;
  return a === b ? 0 : a > b ? 1 : -1;
};
proto.negate = function () { return new BigInteger(-this.value); };
proto.abs = function () { return new BigInteger(this.value < 0n ? -this.value : this.value); };
proto.not = function () { return new BigInteger(~this.value); };
proto.next = function () { return new BigInteger(this.value + 1n); };
proto.prev = function () { return new BigInteger(this.value - 1n); };
proto.square = function () { return new BigInteger(this.value * this.value); };
proto.isZero = function () { return this.value === 0n; };
proto.isUnit = function () { return this.value === 1n || this.value === -1n; };
proto.isPositive = function () { return this.value > 0n; };
proto.isNegative = function () { return this.value < 0n; };
proto.isEven = function () { return (this.value & 1n) === 0n; };
proto.isOdd = function () { return (this.value & 1n) === 1n; };
proto.toString = function (radix) { return this.value.toString(radix === undefined ? 10 : radix); };
proto.toJSON = function () { return this.value.toString(); };
proto.valueOf = proto.toJSNumber = function () { return Number(this.value); };
bigInt.zero = new BigInteger(0n);
bigInt.one = new BigInteger(1n);
bigInt.minusOne = new BigInteger(-1n);
bigInt.isInstance = function (x) { return x instanceof BigInteger; };
bigInt.max = function (a, b) { return toBig(a) >= toBig(b) ? bigInt(a) : bigInt(b); };
bigInt.min = function (a, b) { return toBig(a) <= toBig(b) ? bigInt(a) : bigInt(b); };

// ---- bytes ----
var HEX = '0123456789abcdef';
function bytesToHex(bytes) {
  var out = '0x';
  for (var i = 0; i < bytes.length; i++) { var b = bytes[i]; out += HEX[b >> 4] + HEX[b & 15]; }
  return out;
}
function hexToBytes(hex) {
  var s = hex.slice(0, 2) === '0x' || hex.slice(0, 2) === '0X' ? hex.slice(2) : hex;
  if (s.length % 2 === 1) s = '0' + s;
  var out = new Uint8Array(s.length / 2);
  for (var i = 0; i < out.length; i++) {
    var v = parseInt(s.substr(2 * i, 2), 16);
    if (isNaN(v)) fail('invalid hex string: ' + hex);
    out[i] = v;
  }
  return out;
}
function asBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (Array.isArray(x)) {
    var out = new Uint8Array(x.length);
    for (var i = 0; i < x.length; i++) out[i] = x[i];
    return out;
  }
  fail('invalid buffer type');
}
function fixed(bytes, size) {
  if (bytes.length >= size) return bytes.slice(bytes.length - size);
  var out = new Uint8Array(size);
  out.set(bytes, size - bytes.length);
  return out;
}
function bytesOrHex(x, size) { return fixed(typeof x === 'string' ? hexToBytes(x) : asBytes(x), size); }
function addressHex(x) { return bytesToHex(fixed(asBytes(x), 20)); }
function wordHex(x) { return bytesToHex(fixed(asBytes(x), 32)); }

global.bigInt = bigInt;
global.toHex = function (bytes) { return bytesToHex(asBytes(bytes)); };
global.toWord = function (x) { return bytesOrHex(x, 32); };
global.toAddress = function (x) { return bytesOrHex(x, 20); };
global.toContract = function (from, nonce) {
  return hexToBytes(host.createAddress(bytesToHex(bytesOrHex(from, 20)), Number(nonce)));
};
global.toContract2 = function (from, salt, initcode) {
  var saltHex = bytesToHex(bytesOrHex(salt, 32));
  return hexToBytes(host.create2Address(bytesToHex(bytesOrHex(from, 20)), saltHex, bytesToHex(asBytes(initcode))));
};
global.isPrecompiled = function (address) { return host.isPrecompiled(bytesToHex(bytesOrHex(address, 20))); };
global.slice = function (bytes, start, end) {
  var b = asBytes(bytes);
  if (start < 0 || start > end || end > b.length) {
    fail('tracer accessed out of bound memory: available ' + b.length + ', offset ' + start + ', size ' + (end - start));
  }
  return b.slice(start, end);
};

// ---- log: one object per context; the host updates the step fields ----
var step = { pc: 0, op: 0, gas: 0, cost: 0, depth: 0, refund: 0, error: undefined };
var opNames = [];
var log = {
  op: {
    isPush: function () { return step.op >= 0x5f && step.op <= 0x7f; },
    toString: function () {
      var name = opNames[step.op];
      if (name === undefined) { name = host.opName(step.op); opNames[step.op] = name; }
      return name;
    },
    toNumber: function () { return step.op; },
  },
  stack: {
    peek: function (index) { return bigInt(host.stackPeek(Number(index)), 16); },
    length: function () { return host.stackLength(); },
  },
  memory: {
    slice: function (begin, end) { return hexToBytes(host.memorySlice(Number(begin), Number(end))); },
    getUint: function (offset) { return bigInt(host.memoryUint(Number(offset)), 16); },
    length: function () { return host.memoryLength(); },
  },
  contract: {
    getCaller: function () { return hexToBytes(host.contract('caller')); },
    getAddress: function () { return hexToBytes(host.contract('address')); },
    getValue: function () { return bigInt(host.contract('value'), 16); },
    getInput: function () { return hexToBytes(host.contract('input')); },
  },
  getPC: function () { return step.pc; },
  getGas: function () { return step.gas; },
  getCost: function () { return step.cost; },
  getDepth: function () { return step.depth; },
  getRefund: function () { return step.refund; },
  getError: function () { return step.error; },
};

var db = {
  getBalance: function (address) { return bigInt(host.db('balance', addressHex(address)), 16); },
  getNonce: function (address) { return host.db('nonce', addressHex(address)); },
  getCode: function (address) { return hexToBytes(host.db('code', addressHex(address))); },
  getState: function (address, slot) { return hexToBytes(host.db('storage', addressHex(address), wordHex(slot))); },
  exists: function (address) { return host.db('exists', addressHex(address)); },
};

function setStep(pc, op, gas, cost, depth, refund, error) {
  step.pc = pc; step.op = op; step.gas = gas; step.cost = cost; step.depth = depth; step.refund = refund;
  step.error = error;
}

function bytesField(value) { return value === undefined ? undefined : hexToBytes(value); }

return {
  step: function (tracer, pc, op, gas, cost, depth, refund, error) {
    setStep(pc, op, gas, cost, depth, refund, error);
    tracer.step(log, db);
  },
  fault: function (tracer, pc, op, gas, cost, depth, refund, error) {
    setStep(pc, op, gas, cost, depth, refund, error);
    tracer.fault(log, db);
  },
  enter: function (tracer, type, from, to, input, gas, value) {
    var valueBig = value === undefined ? undefined : bigInt(value, 16);
    tracer.enter({
      getType: function () { return type; },
      getFrom: function () { return hexToBytes(from); },
      getTo: function () { return bytesField(to); },
      getInput: function () { return hexToBytes(input); },
      getGas: function () { return gas; },
      getValue: function () { return valueBig; },
    });
  },
  exit: function (tracer, gasUsed, output, error) {
    tracer.exit({
      getGasUsed: function () { return gasUsed; },
      getOutput: function () { return hexToBytes(output); },
      getError: function () { return error; },
    });
  },
  result: function (tracer, contextJson) {
    var raw = JSON.parse(contextJson);
    var ctx = {};
    for (var key in raw) {
      var kind = raw[key][0], value = raw[key][1];
      ctx[key] = kind === 'bytes' ? hexToBytes(value) : kind === 'big' ? bigInt(value, 16) : value;
    }
    var out = JSON.stringify(tracer.result(ctx, db));
    return out === undefined ? 'null' : out;
  },
  setup: function (tracer, configJson) {
    tracer.setup(configJson);
  },
};
})()`;
