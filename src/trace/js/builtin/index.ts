/** The JavaScript tracers this node provides by name, as geth registers its bundled ones. */
import { CALL_TRACER_LEGACY } from './call-tracer-legacy.js';
import { PRESTATE_TRACER_LEGACY } from './prestate-tracer-legacy.js';
import { NOOP_TRACER_LEGACY, OPCOUNT_TRACER, UNIGRAM_TRACER } from './small-tracers.js';

const BUILTIN_JS_TRACERS: Readonly<Record<string, string>> = {
  callTracerLegacy: CALL_TRACER_LEGACY,
  prestateTracerLegacy: PRESTATE_TRACER_LEGACY,
  opcountTracer: OPCOUNT_TRACER,
  noopTracerLegacy: NOOP_TRACER_LEGACY,
  unigramTracer: UNIGRAM_TRACER,
};

/** Names of the bundled JavaScript tracers. */
export const BUILTIN_JS_TRACER_NAMES: readonly string[] = Object.keys(BUILTIN_JS_TRACERS);

/** The source of bundled tracer `name`, or undefined when `name` is not one. */
export function builtinJsTracerSource(name: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(BUILTIN_JS_TRACERS, name) ? BUILTIN_JS_TRACERS[name] : undefined;
}
