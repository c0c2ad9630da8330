/**
 * The per-transaction time limit of a trace (geth's TraceConfig `timeout`). The limit is
 * checked as opcodes run, by a tracer wrapper that reads the clock at the first opcode and
 * every 16th after it: once a transaction passes its deadline the wrapper parks the EVM (its
 * step never returns) and the request fails with geth's `execution timeout`; the parked run
 * holds no timer or I/O, so it is simply collected. A
 * tracer hook that fails (a struct log over its size cap, an exception in a JavaScript
 * tracer) stops the run the same way with that error, instead of letting the EVM run on
 * untraced to the end of its gas. The wrapper also yields to the event loop every few
 * milliseconds, so a long trace does not stop the node from answering other requests (and
 * concurrent traces interleave).
 */
import { looksAtOpcodes, type FrameEnd, type FrameStart, type JsonValue, type OpcodeStep, type TraceLog, type Tracer, type TxEnd, type TxStart } from '../types.js';
import { TraceError } from '../errors.js';

/** A trace passed its deadline; the message is geth's. */
export class TraceTimeoutError extends TraceError {
  constructor() {
    super('execution timeout');
  }
}

/** How long a traced run may compute before it lets the event loop serve others. */
const YIELD_INTERVAL_MS = 10;
/**
 * Opcodes between two readings of the clock. Reading it costs about as much as running a
 * cheap opcode; sixteen opcodes take microseconds, far below any deadline or yield interval.
 */
const STEPS_PER_CLOCK_READ = 16;

/** A promise that never settles; a fresh one each time, so nothing keeps a parked run reachable. */
function parked(): Promise<never> {
  return new Promise<never>(() => undefined);
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The time limits of one trace request: every transaction it traces gets `timeoutMs` from the
 * moment it starts. `run` races the traced work against the first expiry.
 */
export class TraceWatch {
  readonly #timeoutMs: number;
  readonly #stopped: Promise<never>;
  #reject!: (error: unknown) => void;
  #stopReason: unknown;
  #lastYield = performance.now();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#stopped = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    // Only `run` observes the stop; a watch whose work never started must not warn.
    this.#stopped.catch(() => undefined);
  }

  /** The per-transaction limit in milliseconds. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** `tracer` with this watch's deadline enforced on the transaction it traces. */
  wrap(tracer: Tracer): Tracer {
    return new DeadlineTracer(tracer, this);
  }

  /**
   * The outcome of `work`; or TraceTimeoutError once a wrapped transaction passes its
   * deadline, or the error a wrapped tracer hook raised.
   */
  run<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#stopped]);
  }

  /** Whether the traced run has been stopped (its remaining steps are parked). */
  get stopped(): boolean {
    return this.#stopReason !== undefined;
  }

  /** Stops the traced run with `reason` (the first reason wins). */
  stop(reason: unknown): void {
    if (this.#stopReason !== undefined) return;
    this.#stopReason = reason ?? new Error('the trace was stopped');
    this.#reject(this.#stopReason);
  }

  /** Whether the running trace has computed long enough to let the event loop in. */
  dueToYield(now: number): boolean {
    if (now - this.#lastYield < YIELD_INTERVAL_MS) return false;
    this.#lastYield = now;
    return true;
  }
}

/** Forwards every hook to `inner` and stops the transaction at its deadline. */
export class DeadlineTracer implements Tracer {
  #deadline = Number.POSITIVE_INFINITY;
  /** Steps left before the clock is read again (0: at the next step). */
  #untilClock = 0;
  /** Present when `inner` looks at opcodes; otherwise the clock runs in onTick and no step is built. */
  readonly onOpcode: ((step: OpcodeStep) => void | Promise<void>) | undefined;
  readonly onFault: ((step: OpcodeStep, error: string) => void | Promise<void>) | undefined;

  constructor(
    private readonly inner: Tracer,
    private readonly watch: TraceWatch,
  ) {
    const steps = looksAtOpcodes(inner);
    this.onOpcode = steps ? (step) => this.#opcode(step) : undefined;
    this.onFault = steps ? (step, error) => this.#guard(() => this.inner.onFault?.(step, error)) : undefined;
  }

  async onTxStart(tx: TxStart): Promise<void> {
    this.#deadline = performance.now() + this.watch.timeoutMs;
    this.#untilClock = 0;
    await this.inner.onTxStart?.(tx);
  }

  onEnter(frame: FrameStart): void {
    this.#guard(() => this.inner.onEnter?.(frame));
  }

  onExit(frame: FrameEnd): void {
    this.#guard(() => this.inner.onExit?.(frame));
  }

  onTick(): void | Promise<void> {
    if (this.watch.stopped) return parked();
    if (--this.#untilClock > 0) return;
    this.#untilClock = STEPS_PER_CLOCK_READ;
    const now = performance.now();
    if (now > this.#deadline) {
      this.watch.stop(new TraceTimeoutError());
      return parked();
    }
    if (this.watch.dueToYield(now)) return yieldToEventLoop();
  }

  #opcode(step: OpcodeStep): void | Promise<void> {
    const tick = this.onTick();
    if (tick !== undefined) return tick.then(() => this.#step(step));
    return this.#step(step);
  }

  /** `inner.onOpcode` under #guard's rules, without a closure per step (this runs for every opcode). */
  #step(step: OpcodeStep): void | Promise<void> {
    let outcome: void | Promise<void>;
    try {
      outcome = this.inner.onOpcode?.(step);
    } catch (error) {
      this.watch.stop(error);
      return parked();
    }
    return outcome === undefined ? undefined : this.#settled(outcome);
  }

  onLog(log: TraceLog): void {
    this.#guard(() => this.inner.onLog?.(log));
  }

  onTxEnd(end: TxEnd): void | Promise<void> {
    return this.inner.onTxEnd?.(end);
  }

  result(): JsonValue {
    return this.inner.result();
  }

  /** Runs a hook; if it fails, the run stops with its error and the step is parked. */
  #guard(hook: () => void | Promise<void>): void | Promise<void> {
    let outcome: void | Promise<void>;
    try {
      outcome = hook();
    } catch (error) {
      this.watch.stop(error);
      return parked();
    }
    return outcome === undefined ? undefined : this.#settled(outcome);
  }

  /** `outcome`, with a rejection stopping the run and parking the step. */
  #settled(outcome: Promise<void>): Promise<void> {
    return outcome.catch((error: unknown) => {
      this.watch.stop(error);
      return parked();
    });
  }
}
