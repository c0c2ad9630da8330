/** Exact-path routing shared by both transports, so 404 and 405 are decided in one place. */
import { TransportError, type HttpMethod, type JsonRpcHandler, type RouteHandler } from './types.js';

/** What is served for one method on one path. */
export type Endpoint =
  | { readonly kind: 'route'; readonly handler: RouteHandler }
  | { readonly kind: 'jsonrpc'; readonly handler: JsonRpcHandler };

/** `lookup` result when no endpoint exists on the path. */
export const NOT_FOUND = 404;
/** `lookup` result when the path exists but not for this method. */
export const METHOD_NOT_ALLOWED = 405;

/** Endpoints by path, then by upper-case method. */
export class RouteTable {
  readonly #paths = new Map<string, Map<string, Endpoint>>();
  readonly #allow = new Map<string, string>();

  /** Registers an endpoint; a path may carry one endpoint per method. */
  add(method: HttpMethod, path: string, endpoint: Endpoint): void {
    if (!path.startsWith('/')) throw new TransportError(`route paths start with '/', got ${JSON.stringify(path)}`);
    let methods = this.#paths.get(path);
    if (methods === undefined) {
      methods = new Map();
      this.#paths.set(path, methods);
    }
    if (methods.has(method)) throw new TransportError(`${method} ${path} is already registered; register each route once`);
    methods.set(method, endpoint);
    this.#allow.set(path, [...methods.keys(), 'OPTIONS'].join(', '));
  }

  /** The endpoint for a request, or NOT_FOUND / METHOD_NOT_ALLOWED. */
  lookup(method: string, path: string): Endpoint | typeof NOT_FOUND | typeof METHOD_NOT_ALLOWED {
    const methods = this.#paths.get(path);
    if (methods === undefined) return NOT_FOUND;
    return methods.get(method) ?? METHOD_NOT_ALLOWED;
  }

  /** The `Allow` header value of a path (its methods plus OPTIONS), or undefined for an unknown path. */
  allowed(path: string): string | undefined {
    return this.#allow.get(path);
  }
}
