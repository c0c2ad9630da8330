/**
 * Object copies for hot paths, where a literal that starts with a spread and then adds
 * properties costs a new V8 hidden class per object (docs/ARCHITECTURE.md, "Object shapes on
 * hot paths").
 */

/** A copy of `base` with `fields` set on it (what `{ ...base, ...fields }` makes), without a hidden class of its own. */
export function withFields<A extends object, B extends object>(base: A, fields: B): Omit<A, keyof B> & B {
  return Object.assign({}, base, fields);
}
