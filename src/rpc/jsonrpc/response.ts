/**
 * Response serialisation. Responses are built as strings so a single call costs one
 * `JSON.stringify` of its result and a few concatenations; the member order follows geth
 * (`jsonrpc`, `id`, then `result` or `error`).
 */
import { encodeJson, RawJson, type AsciiJsonParts } from '../../util/raw-json.js';
import { RpcError } from './errors.js';

/**
 * One answer as it goes out: text, or UTF-8 bytes when the result came as bytes (a trace a worker
 * encoded), so a body of megabytes is copied once instead of decoded to a string and encoded back.
 */
export type EncodedResponse = string | Uint8Array;

/** The answer as text (a batch or a WebSocket frame that must be one string). */
export function responseText(answer: EncodedResponse): string {
  return typeof answer === 'string' ? answer : Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength).toString('utf8');
}

/** The answer's size: characters of a text (as the limits have always counted), bytes of bytes. */
export function responseSize(answer: EncodedResponse): number {
  return typeof answer === 'string' ? answer.length : answer.byteLength;
}

/** A request id as it arrived: geth accepts any JSON value except objects and arrays. */
export type RequestId = string | number | boolean | null;

/** The id text for responses that cannot be tied to a request. */
export const NULL_ID = 'null';

/** Serialises an id for the response (numbers skip `JSON.stringify`; one JSON cannot carry is null). */
export function encodeId(id: RequestId): string {
  if (typeof id === 'number') return Number.isFinite(id) ? String(id) : NULL_ID;
  return JSON.stringify(id);
}

/** `{"jsonrpc":"2.0","id":…,"error":{…}}` for an already-encoded id. */
export function errorResponse(idText: string, error: RpcError): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${encodeErrorObject(error)}}`;
}

/**
 * `{"jsonrpc":"2.0","id":…,"result":…}`; `undefined` becomes `null`. A result JSON cannot
 * carry (a bigint, a cycle) yields a -32603 error naming the method, because quantities must be
 * encoded as hex strings by the method itself.
 */
export function resultResponse(idText: string, result: unknown, method: string): EncodedResponse {
  if (result instanceof RawJson && result.parts !== undefined) return partsResponse(idText, result.parts);
  let json: string | undefined;
  try {
    // Pre-encoded parts (RawJson: a trace built as text, eth_getLogs' remembered log texts) go in as they are.
    json = encodeJson(result);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return errorResponse(
      idText,
      RpcError.internal(`the result of ${method} cannot be serialised as JSON (${reason}); encode bigints as 0x-prefixed hex strings`),
    );
  }
  return `{"jsonrpc":"2.0","id":${idText},"result":${json ?? 'null'}}`;
}

/** The response around a result that arrived as head, ASCII body bytes and tail: one buffer, one copy of the body. */
function partsResponse(idText: string, parts: AsciiJsonParts): Uint8Array {
  const before = `{"jsonrpc":"2.0","id":${idText},"result":${parts.head}`;
  const after = `${parts.tail}}`;
  const beforeBytes = Buffer.byteLength(before, 'utf8');
  const out = Buffer.allocUnsafe(beforeBytes + parts.body.byteLength + Buffer.byteLength(after, 'utf8'));
  out.write(before, 0, 'utf8');
  out.set(parts.body, beforeBytes);
  out.write(after, beforeBytes + parts.body.byteLength, 'utf8');
  return out;
}

function encodeErrorObject(error: RpcError): string {
  const head = `{"code":${error.code},"message":${JSON.stringify(error.message)}`;
  if (error.data === undefined) return `${head}}`;
  try {
    return `${head},"data":${JSON.stringify(error.data)}}`;
  } catch {
    // Unserialisable data must not turn an error response into a crash; the message still goes out.
    return `${head}}`;
  }
}
