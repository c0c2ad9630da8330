/**
 * Picks the transport: uWebSockets.js when it loads, node:http + ws otherwise, with the reason
 * logged. `STRATA_RPC_TRANSPORT=node` forces the fallback; `=uws` makes a missing uWS an error.
 */
import { Logger } from '../../log/logger.js';
import { NodeHttpTransport } from './node-transport.js';
import { TransportError, type HttpTransport, type TransportKind, type TransportOptions } from './types.js';
import { loadUws, UwsTransport, type UwsModule } from './uws-transport.js';

/** Environment variable that chooses the transport: `uws`, `node`, or unset/`auto`. */
export const TRANSPORT_ENV = 'STRATA_RPC_TRANSPORT';

/** Options of `createHttpTransport`. */
export interface CreateTransportOptions extends TransportOptions {
  /** Overrides the environment: which transport to use. */
  prefer?: TransportKind | 'auto';
  logger?: Logger;
  /** Loads uWS; replaceable to exercise the fallback. */
  loadUws?: () => UwsModule;
}

/** Creates the best available transport and logs which one and why. */
export function createHttpTransport(options: CreateTransportOptions = {}): HttpTransport {
  const logger = options.logger ?? new Logger({ base: { module: 'rpc' } });
  const choice = options.prefer ?? parseChoice(process.env[TRANSPORT_ENV]);
  const source = options.prefer === undefined ? `${TRANSPORT_ENV}=${choice}` : `prefer=${choice}`;
  if (choice === 'node') {
    logger.info('RPC transport: node:http + ws', { reason: source });
    return new NodeHttpTransport(options, logger);
  }
  let uws: UwsModule;
  try {
    uws = (options.loadUws ?? loadUws)();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    if (choice === 'uws') {
      throw new TransportError(`${source} but uWebSockets.js does not load here (${reason}); unset ${TRANSPORT_ENV} or choose auto to fall back to node:http`);
    }
    logger.warn('RPC transport: uWebSockets.js unavailable, falling back to node:http + ws (lower throughput)', { reason });
    return new NodeHttpTransport(options, logger);
  }
  logger.info('RPC transport: uWebSockets.js');
  return new UwsTransport(options, logger, uws);
}

function parseChoice(value: string | undefined): TransportKind | 'auto' {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'uws' || value === 'node') return value;
  throw new TransportError(`${TRANSPORT_ENV} must be uws, node or auto, got ${JSON.stringify(value)}`);
}
