/**
 * The prototype of @ethereumjs/evm's Interpreter, which the package does not export. Two
 * hot paths replace one of its methods (jump-analysis-cache.ts, trace/step-event.ts); the
 * class is reached through its module's URL next to the package entry, so it is the very
 * module the EVM itself loaded. Undefined when the file or class is missing (another
 * @ethereumjs version): callers then leave the library's own method in place.
 */
const entry = import.meta.resolve('@ethereumjs/evm');
const { Interpreter } = (await import(entry.replace(/index\.(js|ts)$/, 'interpreter.$1'))) as { Interpreter?: { prototype: object } };

/** The Interpreter prototype, or undefined when this @ethereumjs version has none to find. */
export const interpreterPrototype: object | undefined = Interpreter?.prototype;
