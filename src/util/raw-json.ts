/**
 * Pre-encoded JSON text that rides inside a result and is spliced into the encoded output as
 * it is. A large result built as text where it is produced (the struct logger's step list, a
 * trace result that crossed from a worker thread) then costs no parse and no re-encode.
 */
import { randomBytes } from 'node:crypto';

/**
 * Pieces met by the `encodeJson` call in progress: their texts, and the marker that names
 * them inside the encoded output. Only one JSON.stringify runs at a time, so one slot suffices.
 */
let collecting: { texts: string[]; nonce: string } | undefined;

/** JSON text as a short head, a long body of ASCII bytes and a short tail (in that order). */
export interface AsciiJsonParts {
  readonly head: string;
  readonly body: Uint8Array;
  readonly tail: string;
}

/** A value whose JSON text is already known; `encodeJson` emits `text` verbatim. */
export class RawJson {
  #text: string | undefined;
  /** The parts the text was made of, when it came as bytes (they can move between threads without a copy). */
  readonly parts: AsciiJsonParts | undefined;

  /** `text` must be one complete JSON value; the producer vouches for it. */
  constructor(text: string);
  /** The text `head` + `body` (ASCII bytes, decoded when first needed) + `tail`. */
  constructor(parts: AsciiJsonParts);
  constructor(source: string | AsciiJsonParts) {
    if (typeof source === 'string') this.#text = source;
    else this.parts = source;
  }

  /** The JSON text. */
  get text(): string {
    if (this.#text === undefined) {
      const { head, body, tail } = this.parts!;
      this.#text = `${head}${Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1')}${tail}`;
    }
    return this.#text;
  }

  /**
   * Inside `encodeJson` a placeholder the encoder swaps for the text. Anywhere else
   * (a plain JSON.stringify) the parsed value, so the output is right, only slower.
   */
  toJSON(): unknown {
    if (collecting === undefined) return JSON.parse(this.text) as unknown;
    // An unguessable nonce per encoding: no string a client or a tracer produced can match it.
    if (collecting.nonce === '') collecting.nonce = randomBytes(12).toString('hex');
    collecting.texts.push(this.text);
    return `\u0001raw-json:${collecting.nonce}:${collecting.texts.length - 1}`;
  }
}

/**
 * JSON.stringify that splices every RawJson in `value` in as its text; `undefined` when
 * `value` has no JSON form (as JSON.stringify). Throws what JSON.stringify throws (bigint, cycle).
 */
export function encodeJson(value: unknown): string | undefined {
  if (value instanceof RawJson) return value.text;
  const pieces = { texts: [] as string[], nonce: '' };
  const outer = collecting;
  collecting = pieces;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } finally {
    collecting = outer;
  }
  if (json === undefined || pieces.texts.length === 0) return json;
  // JSON.stringify spells the \u0001 of the marker as the six characters \u0001.
  const placeholder = new RegExp(`"\\\\u0001raw-json:${pieces.nonce}:(\\d+)"`, 'g');
  return json.replace(placeholder, (_match, index: string) => pieces.texts[Number(index)]!);
}
