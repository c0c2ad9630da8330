/** Puts a dispatcher behind a transport: JSON-RPC over HTTP POST and over WebSocket. */
import { Logger } from '../../log/logger.js';
import type { HttpTransport, WsConnection } from '../transport/types.js';
import { HTTP_CONTEXT, webSocketContext, type RequestContext } from './context.js';
import type { Dispatcher } from './dispatcher.js';
import { responseText } from './response.js';

/** Where to serve JSON-RPC; `false` disables that side. */
export interface ServeJsonRpcOptions {
  /** HTTP POST path. Default `/`. */
  http?: string | false;
  /** WebSocket path. Default: none. */
  ws?: string | false;
  logger?: Logger;
}

/** Registers the dispatcher on the transport (call before `listen`). */
export function serveJsonRpc(transport: HttpTransport, dispatcher: Dispatcher, options: ServeJsonRpcOptions = {}): void {
  const httpPath = options.http ?? '/';
  const wsPath = options.ws ?? false;
  const logger = options.logger ?? new Logger({ base: { module: 'rpc' } });
  if (httpPath !== false) transport.jsonRpc(httpPath, (body) => dispatcher.handle(body, HTTP_CONTEXT));
  if (wsPath === false) return;
  transport.onWebSocket<RequestContext>(wsPath, {
    open: (connection) => webSocketContext(connection),
    message: (connection, text, ctx) => {
      const answer = dispatcher.handle(text, ctx);
      if (!(answer instanceof Promise)) {
        sendIfAny(connection, responseText(answer));
        return;
      }
      answer.then(
        (later) => sendIfAny(connection, responseText(later)),
        (error: unknown) => logger.error('WebSocket JSON-RPC answer failed', { connection: connection.id, error: String(error) }),
      );
    },
  });
}

function sendIfAny(connection: WsConnection, text: string): void {
  if (text !== '') connection.send(text);
}
