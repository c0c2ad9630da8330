/** What a method handler knows about the call it serves. */
import type { WsConnection } from '../transport/types.js';

/** Per-call context handed to method handlers. */
export interface RequestContext {
  /** The transport the call arrived on. */
  readonly transport: 'http' | 'ws';
  /** The WebSocket of the call, kept by subscriptions to push notifications; undefined over HTTP. */
  readonly connection: WsConnection | undefined;
}

/** The context of every HTTP call; shared, since an HTTP call carries nothing per request. */
export const HTTP_CONTEXT: RequestContext = Object.freeze({ transport: 'http', connection: undefined });

/** The context of calls arriving on one WebSocket (created once per connection). */
export function webSocketContext(connection: WsConnection): RequestContext {
  return Object.freeze({ transport: 'ws', connection });
}
