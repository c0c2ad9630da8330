/** geth's `muxTracer`: several tracers in one pass, results keyed by tracer name. */
import type { FrameEnd, FrameStart, JsonValue, OpcodeStep, TraceLog, Tracer, TxEnd, TxStart } from './types.js';

/** Forwards every hook to each named tracer in turn. */
export class MuxTracer implements Tracer {
  constructor(private readonly tracers: ReadonlyMap<string, Tracer>) {}

  async onTxStart(tx: TxStart): Promise<void> {
    for (const tracer of this.tracers.values()) await tracer.onTxStart?.(tx);
  }

  onEnter(frame: FrameStart): void {
    for (const tracer of this.tracers.values()) tracer.onEnter?.(frame);
  }

  onExit(frame: FrameEnd): void {
    for (const tracer of this.tracers.values()) tracer.onExit?.(frame);
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    for (const tracer of this.tracers.values()) await tracer.onOpcode?.(step);
  }

  onLog(log: TraceLog): void {
    for (const tracer of this.tracers.values()) tracer.onLog?.(log);
  }

  async onTxEnd(end: TxEnd): Promise<void> {
    for (const tracer of this.tracers.values()) await tracer.onTxEnd?.(end);
  }

  result(): JsonValue {
    const names = [...this.tracers.keys()].sort();
    return Object.fromEntries(names.map((name) => [name, this.tracers.get(name)?.result() ?? null]));
  }
}
