/** The native tracers by the names geth registers them under. */
import { CallTracer, callTracerConfig } from './call-tracer.js';
import type { TracerConfig } from './config.js';
import { TracerConfigError, UnknownTracerError } from './errors.js';
import { FlatCallTracer, flatCallTracerConfig } from './flat-call-tracer.js';
import { FourByteTracer } from './four-byte-tracer.js';
import { MuxTracer } from './mux-tracer.js';
import { NoopTracer } from './noop-tracer.js';
import { PrestateTracer, prestateTracerConfig } from './prestate-tracer.js';
import type { JsonValue, Tracer } from './types.js';

/** Names accepted by createTracer. */
export const NATIVE_TRACERS = ['callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer', 'muxTracer', 'noopTracer'] as const;

/** One of the native tracer names. */
export type NativeTracerName = (typeof NATIVE_TRACERS)[number];

/** Whether `name` is a native tracer this node provides. */
export function isNativeTracer(name: string): name is NativeTracerName {
  return (NATIVE_TRACERS as readonly string[]).includes(name);
}

function asConfig(config: JsonValue | undefined, tracer: string): TracerConfig {
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new TracerConfigError(`tracerConfig of ${tracer} must be a JSON object`);
  }
  return config;
}

/** A fresh tracer for one transaction; `config` is the request's `tracerConfig`. */
export function createTracer(name: string, config?: JsonValue): Tracer {
  if (!isNativeTracer(name)) throw new UnknownTracerError(name);
  const options = asConfig(config, name);
  switch (name) {
    case 'callTracer':
      return new CallTracer(callTracerConfig(options));
    case 'flatCallTracer':
      return new FlatCallTracer(flatCallTracerConfig(options));
    case 'prestateTracer':
      return new PrestateTracer(prestateTracerConfig(options));
    case '4byteTracer':
      return new FourByteTracer();
    case 'noopTracer':
      return new NoopTracer();
    case 'muxTracer': {
      const children = new Map<string, Tracer>();
      for (const [child, childConfig] of Object.entries(options)) children.set(child, createTracer(child, childConfig ?? null));
      return new MuxTracer(children);
    }
  }
}
