/**
 * The QuickJS WebAssembly module JavaScript tracers run in, loaded once per process. Its
 * linear memory has a hard maximum, so no tracer can grow the host's memory past it: an
 * allocation beyond it fails inside the sandbox as "out of memory".
 */
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';

import { JsTracerEngineNotLoadedError } from './errors.js';

const WASM_PAGE = 64 * 1024;
const INITIAL_HEAP_BYTES = 16 * 1024 * 1024;
/** Default ceiling of the engine's whole heap (all tracers together). */
export const DEFAULT_ENGINE_HEAP_CEILING = 512 * 1024 * 1024;

/** The part of a WebAssembly.Memory the engine reads (the project's TypeScript libs have no DOM/WebAssembly types). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

type WasmMemoryConstructor = new (descriptor: { initial: number; maximum: number }) => WasmMemory;
const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: WasmMemoryConstructor } }).WebAssembly;

/** The loaded engine: the module and the memory it allocates from. */
export interface JsTracerEngine {
  module: QuickJSWASMModule;
  memory: WasmMemory;
}

/** Options of `loadJsTracerEngine`. */
export interface JsTracerEngineOptions {
  /** Hard ceiling of the engine's WebAssembly memory, shared by all tracers. */
  heapCeilingBytes?: number;
}

let engine: JsTracerEngine | undefined;
let loading: Promise<void> | undefined;

/** Loads the QuickJS WebAssembly module once; later calls return at once. */
export function loadJsTracerEngine(options: JsTracerEngineOptions = {}): Promise<void> {
  if (engine !== undefined) return Promise.resolve();
  loading ??= (async () => {
    const ceiling = options.heapCeilingBytes ?? DEFAULT_ENGINE_HEAP_CEILING;
    const memory = new Memory({
      initial: INITIAL_HEAP_BYTES / WASM_PAGE,
      maximum: Math.max(INITIAL_HEAP_BYTES, ceiling) / WASM_PAGE,
    });
    const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory as never }));
    engine = { module, memory };
  })();
  return loading;
}

/** Whether `loadJsTracerEngine()` has finished. */
export function isJsTracerEngineLoaded(): boolean {
  return engine !== undefined;
}

/** The loaded engine; throws when it is not loaded yet. */
export function jsTracerEngine(): JsTracerEngine {
  if (engine === undefined) throw new JsTracerEngineNotLoadedError();
  return engine;
}
