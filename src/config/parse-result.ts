/**
 * The outcome of reading one value: the typed value, or why it was rejected. Readers return
 * this instead of throwing so the caller can attach the file, section and key to the error.
 */

/** A parsed value, or the reason it was rejected. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** A successful parse. */
export function accept<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

/** A rejection; `reason` completes "found X (reason)". */
export function reject<T>(reason: string): Parsed<T> {
  return { ok: false, reason };
}
