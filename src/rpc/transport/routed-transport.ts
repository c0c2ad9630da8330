/**
 * What both transports share: the route table and the one-way lifecycle new → listening →
 * closed (routes are registered before listen(); after close() pending answers are dropped).
 */
import { RouteTable } from './router.js';
import { TransportError, type HttpMethod, type HttpTransport, type JsonRpcHandler, type RouteHandler, type TransportKind, type WebSocketHandlers } from './types.js';

/** Where a transport is in its lifecycle. */
export type TransportState = 'new' | 'listening' | 'closed';

/** The route registration and lifecycle of an HttpTransport; subclasses serve and listen. */
export abstract class RoutedTransport implements HttpTransport {
  abstract readonly kind: TransportKind;
  protected readonly routes = new RouteTable();
  protected state: TransportState = 'new';

  /** True once `close` ran; pending answers are dropped. */
  get closed(): boolean {
    return this.state === 'closed';
  }

  route(method: HttpMethod, path: string, handler: RouteHandler): void {
    this.assertNew('route');
    this.routes.add(method, path, { kind: 'route', handler });
  }

  jsonRpc(path: string, handler: JsonRpcHandler): void {
    this.assertNew('jsonRpc');
    this.routes.add('POST', path, { kind: 'jsonrpc', handler });
  }

  abstract onWebSocket<S>(path: string, handlers: WebSocketHandlers<S>): void;
  abstract listen(host: string, port: number): Promise<number>;
  abstract close(): Promise<void>;

  /** Refuses a registration (or a second listen) once the transport has left the `new` state. */
  protected assertNew(what: string): void {
    if (this.state !== 'new') throw new TransportError(`${what}() must be called before listen() and close()`);
  }
}
