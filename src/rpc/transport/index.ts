/** The RPC transport: one interface, a uWebSockets.js and a node:http implementation, and the factory. */
export * from './types.js';
export { createHttpTransport, TRANSPORT_ENV, type CreateTransportOptions } from './factory.js';
export { UwsTransport, loadUws, type UwsModule } from './uws-transport.js';
export { NodeHttpTransport } from './node-transport.js';
