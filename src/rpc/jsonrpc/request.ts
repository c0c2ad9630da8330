/**
 * Classification of one incoming JSON-RPC message, following geth: a call has `"jsonrpc":"2.0"`,
 * a non-empty string `method` and an `id` member (any JSON value except an object or array,
 * `null` included); a notification is the same without an `id` member; anything else is an
 * invalid request, answered with the request's id when it has a usable one, else `null`.
 */
import { RpcError } from './errors.js';
import { encodeId, NULL_ID, type RequestId } from './response.js';

/** A well-formed call or notification. */
export interface ValidMessage {
  readonly kind: 'call' | 'notification';
  readonly method: string;
  /** The `params` member as sent; `paramsArray` turns it into positional arguments. */
  readonly params: unknown;
  /** The encoded id of a call; unused for notifications. */
  readonly idText: string;
}

/** A message that cannot be executed, with the id text its error response must carry. */
export interface InvalidMessage {
  readonly kind: 'invalid';
  readonly idText: string;
}

/** What a message turned out to be. */
export type ClassifiedMessage = ValidMessage | InvalidMessage;

const INVALID_WITHOUT_ID: InvalidMessage = { kind: 'invalid', idText: NULL_ID };

/**
 * Classifies one parsed message (a top-level object or one element of a batch). `rawId` gives
 * the id's text as sent, which a numeric id is echoed with.
 */
export function classifyMessage(message: unknown, rawId?: () => string | undefined): ClassifiedMessage {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return INVALID_WITHOUT_ID;
  const fields = message as Record<string, unknown>;
  const hasId = Object.hasOwn(fields, 'id');
  const id = fields['id'];
  const idUsable = hasId && isUsableId(id);
  const method = fields['method'];
  if (fields['jsonrpc'] === '2.0' && typeof method === 'string' && method !== '') {
    if (!hasId) return { kind: 'notification', method, params: fields['params'], idText: NULL_ID };
    if (idUsable) return { kind: 'call', method, params: fields['params'], idText: idText(id as RequestId, rawId) };
  }
  return idUsable ? { kind: 'invalid', idText: idText(id as RequestId, rawId) } : INVALID_WITHOUT_ID;
}

/** The id as the response must carry it: a number as it was written (`1E2`, `-0.0`, `1e400`), not as JavaScript prints it. */
function idText(id: RequestId, rawId: (() => string | undefined) | undefined): string {
  if (typeof id === 'number') {
    const raw = rawId?.();
    if (raw !== undefined) return raw;
  }
  return encodeId(id);
}

function isUsableId(id: unknown): boolean {
  return id === null || typeof id === 'string' || typeof id === 'number' || typeof id === 'boolean';
}

/**
 * Positional arguments from a `params` member: absent or `null` means none (geth accepts
 * `null` because its own client once sent it); any non-array is geth's "non-array args".
 */
export function paramsArray(params: unknown): unknown[] | RpcError {
  if (Array.isArray(params)) return params;
  if (params === undefined || params === null) return [];
  return RpcError.invalidParams('non-array args');
}
