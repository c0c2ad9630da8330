/**
 * libp2p 3 calls `Promise.withResolvers`, which Node.js only has from version 22; Strata runs
 * on Node.js 20, where the inbound connection upgrade would otherwise throw and the dialer
 * would see the socket reset. Imported for its effect before the peer layer starts.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

type WithResolvers = <T>() => Resolvers<T>;

const ctor = Promise as unknown as { withResolvers?: WithResolvers };
if (typeof ctor.withResolvers !== 'function') {
  ctor.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
