/** Tracers by the names geth registers them under; any other name is JavaScript tracer source. */
import { CallTracer, callTracerConfig } from './call-tracer.js';
import type { TracerConfig } from './config.js';
import { Erc7562Tracer, erc7562TracerConfig } from './erc7562-tracer.js';
import { TracerConfigError, UnknownTracerError } from './errors.js';
import { FlatCallTracer, flatCallTracerConfig } from './flat-call-tracer.js';
import { FourByteTracer } from './four-byte-tracer.js';
import { builtinJsTracerSource } from './js/builtin/index.js';
import { JsTracer } from './js/js-tracer.js';
import { jsTracerLimits, type JsTracerLimits } from './js/limits.js';
import type { StatePreload } from './js/state-cache.js';
import { MuxTracer } from './mux-tracer.js';
import { NoopTracer } from './noop-tracer.js';
import { PrestateTracer, prestateTracerConfig } from './prestate-tracer.js';
import type { JsonValue, Tracer } from './types.js';
import { RawJson } from '../util/raw-json.js';

/** Names accepted by createTracer. */
export const NATIVE_TRACERS = ['callTracer', 'flatCallTracer', 'prestateTracer', '4byteTracer', 'muxTracer', 'noopTracer', 'erc7562Tracer'] as const;

/** One of the native tracer names. */
export type NativeTracerName = (typeof NATIVE_TRACERS)[number];

/** Bounds of one trace: the absolute deadline (`Date.now()` based) and, for JavaScript tracers, heap and stack. */
export type TracerLimits = Partial<JsTracerLimits>;

/** Whether `name` is a native tracer this node provides. */
export function isNativeTracer(name: string): name is NativeTracerName {
  return (NATIVE_TRACERS as readonly string[]).includes(name);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function asConfig(config: JsonValue | undefined, tracer: string): TracerConfig {
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config) || config instanceof RawJson) {
    throw new TracerConfigError(`tracerConfig of ${tracer} must be a JSON object`);
  }
  return config;
}

/**
 * A fresh tracer for one transaction; `config` is the request's `tracerConfig`. A name that
 * is not native is a bundled JavaScript tracer or JavaScript source (the engine must be
 * loaded with `loadJsTracerEngine()` first); `limits` bound such a tracer and `preload` is
 * the state its request's earlier runs missed.
 */
export function createTracer(name: string, config?: JsonValue, limits?: TracerLimits, preload?: StatePreload): Tracer {
  if (!isNativeTracer(name)) {
    const source = builtinJsTracerSource(name);
    if (source === undefined && IDENTIFIER.test(name)) throw new UnknownTracerError(name);
    return new JsTracer(source ?? name, config, jsTracerLimits(limits), preload);
  }
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
    case 'erc7562Tracer':
      return new Erc7562Tracer(erc7562TracerConfig(options));
    case 'muxTracer': {
      const children = new Map<string, Tracer>();
      for (const [child, childConfig] of Object.entries(options)) children.set(child, createTracer(child, childConfig ?? null, limits, preload));
      return new MuxTracer(children);
    }
  }
}
