/**
 * One tracer's QuickJS runtime and context: the prelude, the evaluated tracer object, calls
 * into it with geth's error wording, and the CPU / heap / stack bounds. Nothing of the host
 * is reachable from inside but the host functions the prelude wraps.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';

import { jsTracerEngine } from './engine.js';
import {
  JsTracerCompileError,
  JsTracerError,
  JsTracerMemoryError,
  JsTracerRuntimeError,
  JsTracerStackError,
  JsTracerTimeoutError,
} from './errors.js';
import type { JsTracerLimits } from './limits.js';
import { DRIVER_METHODS, HOST_GLOBAL, PRELUDE_FILENAME, PRELUDE_SOURCE } from './prelude.js';
import type { TracerHostFunctions } from './step-host.js';

/** The tracer functions geth calls by name. */
export type TracerMethod = 'step' | 'fault' | 'enter' | 'exit' | 'result' | 'setup';

/** A value passed into the sandbox. */
export type SandboxArg = number | string | undefined;

type DriverMethod = (typeof DRIVER_METHODS)[number];

interface VmError {
  name?: string;
  message?: string;
  stack?: string;
}

const TRACER_FILENAME = '<eval>';

/** A tracer object evaluated in its own QuickJS runtime. */
export class TracerSandbox {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly driver = new Map<DriverMethod, QuickJSHandle>();
  private tracer: QuickJSHandle | undefined;
  private readonly methods = new Set<TracerMethod>();
  /** Why the interrupt handler stopped the tracer, if it did. */
  private interrupted: 'timeout' | 'memory' | undefined;
  private disposed = false;

  /** Evaluates `source` (an object literal expression) with `host` behind the helper globals. */
  constructor(source: string, private readonly limits: JsTracerLimits, host: TracerHostFunctions) {
    const engine = jsTracerEngine();
    this.runtime = engine.module.newRuntime();
    try {
      this.runtime.setMaxStackSize(limits.maxStackBytes);
      this.runtime.setMemoryLimit(limits.maxHeapBytes);
      // The runtime's own allocation limit does not cover every allocation path, so the
      // interrupt handler also watches how far the shared WebAssembly heap grows.
      const heapCeiling = engine.memory.buffer.byteLength + limits.maxHeapBytes;
      this.runtime.setInterruptHandler(() => {
        if (Date.now() > limits.deadlineMs) this.interrupted = 'timeout';
        else if (engine.memory.buffer.byteLength > heapCeiling) this.interrupted = 'memory';
        return this.interrupted !== undefined;
      });
      this.context = this.runtime.newContext();
      this.installHost(host);
      this.loadDriver();
      this.tracer = this.evaluate(source);
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  /** Whether the tracer object defines `method` as a function. */
  has(method: TracerMethod): boolean {
    return this.methods.has(method);
  }

  /**
   * Calls tracer function `method` through the driver with `args`; returns the string the
   * driver returns (the JSON result), and throws geth's wording of any failure.
   */
  call(method: TracerMethod, args: readonly SandboxArg[]): string | undefined {
    if (this.disposed || this.tracer === undefined) throw new JsTracerError('the tracer has already finished');
    const fn = this.driver.get(method);
    if (fn === undefined) throw new JsTracerError(`the driver has no ${method}()`);
    const handles = args.map((arg) => this.toHandle(arg));
    try {
      const result = this.context.callFunction(fn, this.context.undefined, [this.tracer, ...handles]);
      if (result.error !== undefined) {
        const error = this.context.dump(result.error) as VmError;
        result.error.dispose();
        throw this.classify(error, method);
      }
      const value = this.context.typeof(result.value) === 'string' ? this.context.getString(result.value) : undefined;
      result.value.dispose();
      return value;
    } finally {
      for (const handle of handles) if (handle !== this.context.undefined) handle.dispose();
    }
  }

  /** Frees the runtime; safe to call more than once. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    try {
      this.tracer?.dispose();
      for (const handle of this.driver.values()) handle.dispose();
      this.driver.clear();
      // Unset when the runtime failed before its context was made.
      (this.context as QuickJSContext | undefined)?.dispose();
      this.runtime.dispose();
    } catch {
      // A runtime left inconsistent by an aborted allocation cannot always be freed; its
      // memory stays inside the engine's bounded heap.
    }
  }

  private toHandle(arg: SandboxArg): QuickJSHandle {
    if (arg === undefined) return this.context.undefined;
    return typeof arg === 'number' ? this.context.newNumber(arg) : this.context.newString(arg);
  }

  private installHost(host: TracerHostFunctions): void {
    const ctx = this.context;
    const object = ctx.newObject();
    const define = (name: string, fn: (...args: QuickJSHandle[]) => SandboxArg | boolean): void => {
      const handle = ctx.newFunction(name, (...args) => {
        try {
          const out = fn(...args);
          if (typeof out === 'boolean') return out ? ctx.true : ctx.false;
          return this.toHandle(out);
        } catch (error) {
          const { name: errorName, message } = error instanceof Error ? error : new Error(String(error));
          return { error: ctx.newError({ name: errorName, message }) };
        }
      });
      ctx.setProp(object, name, handle);
      handle.dispose();
    };
    const num = (h: QuickJSHandle | undefined): number => (h === undefined ? NaN : ctx.getNumber(h));
    const str = (h: QuickJSHandle | undefined): string => (h === undefined ? '' : ctx.getString(h));
    const optStr = (h: QuickJSHandle | undefined): string | undefined => (h === undefined || ctx.typeof(h) === 'undefined' ? undefined : ctx.getString(h));
    define('opName', (op) => host.opName(num(op)));
    define('stackPeek', (i) => host.stackPeek(num(i)));
    define('stackLength', () => host.stackLength());
    define('memorySlice', (a, b) => host.memorySlice(num(a), num(b)));
    define('memoryUint', (a) => host.memoryUint(num(a)));
    define('memoryLength', () => host.memoryLength());
    define('contract', (field) => host.contract(str(field)));
    define('db', (kind, address, slot) => host.db(str(kind), str(address), optStr(slot)));
    define('createAddress', (from, nonce) => host.createAddress(str(from), num(nonce)));
    define('create2Address', (from, salt, code) => host.create2Address(str(from), str(salt), str(code)));
    define('isPrecompiled', (address) => host.isPrecompiled(str(address)));
    ctx.setProp(ctx.global, HOST_GLOBAL, object);
    object.dispose();
  }

  private loadDriver(): void {
    const result = this.context.evalCode(PRELUDE_SOURCE, PRELUDE_FILENAME);
    if (result.error !== undefined) {
      const error = this.context.dump(result.error) as VmError;
      result.error.dispose();
      throw new JsTracerError(`the tracer prelude failed to load: ${error.message ?? 'unknown error'}`);
    }
    for (const method of DRIVER_METHODS) this.driver.set(method, this.context.getProp(result.value, method));
    result.value.dispose();
  }

  /** Evaluates the tracer source as geth does (wrapped in parentheses) and checks its shape. */
  private evaluate(source: string): QuickJSHandle {
    const result = this.context.evalCode(`(${source})`, TRACER_FILENAME);
    if (result.error !== undefined) {
      const error = this.context.dump(result.error) as VmError;
      result.error.dispose();
      const classified = this.classify(error, undefined);
      if (classified instanceof JsTracerRuntimeError) throw new JsTracerCompileError(classified.message);
      throw classified;
    }
    const tracer = result.value;
    if (this.context.typeof(tracer) !== 'object') {
      tracer.dispose();
      throw new JsTracerCompileError('trace object must be an object');
    }
    for (const method of ['step', 'fault', 'enter', 'exit', 'result', 'setup'] as const) {
      const fn = this.context.getProp(tracer, method);
      if (this.context.typeof(fn) === 'function') this.methods.add(method);
      fn.dispose();
    }
    const missing = !this.methods.has('result') ? 'result' : !this.methods.has('fault') ? 'fault' : undefined;
    if (missing !== undefined) {
      tracer.dispose();
      throw new JsTracerCompileError(`trace object must expose a function ${missing}()`);
    }
    if (this.methods.has('enter') !== this.methods.has('exit')) {
      tracer.dispose();
      throw new JsTracerCompileError('trace object must expose either both or none of enter() and exit()');
    }
    return tracer;
  }

  /** geth's text for a failure inside the sandbox: `<message> at <fn> (<eval>:l:c)    in server-side tracer function '<fn>'`. */
  private classify(error: VmError, method: TracerMethod | undefined): JsTracerError {
    const frames = (error.stack ?? '').split('\n').map((line) => line.trim().replace(/^at /, '')).filter((line) => line !== '');
    const frame = frames.find((line) => line.includes(TRACER_FILENAME)) ?? frames[0];
    const where = frame === undefined ? '' : ` at ${frame}`;
    const suffix = method === undefined ? '' : `    in server-side tracer function '${method}'`;
    const message = error.message ?? 'unknown error';
    if (error.name === 'InternalError' && message === 'interrupted') {
      if (this.interrupted === 'memory') {
        return new JsTracerMemoryError(`tracer exceeded its memory limit of ${this.limits.maxHeapBytes} bytes${where}${suffix}`);
      }
      return new JsTracerTimeoutError(`execution timeout${where}${suffix}`);
    }
    if (error.name === 'InternalError' && message === 'out of memory') {
      return new JsTracerMemoryError(`tracer exceeded its memory limit of ${this.limits.maxHeapBytes} bytes (out of memory)${where}${suffix}`);
    }
    if (error.name === 'InternalError' && message === 'stack overflow') {
      return new JsTracerStackError(`tracer exceeded its stack limit of ${this.limits.maxStackBytes} bytes (stack overflow)${where}${suffix}`);
    }
    const text = error.name === 'HostError' || error.name === undefined ? message : `${error.name}: ${message}`;
    return new JsTracerRuntimeError(`${text}${where}${suffix}`);
  }
}
