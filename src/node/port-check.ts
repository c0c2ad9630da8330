/** Whether the ports a node is configured to listen on are free, checked before any store is opened. */
import { createServer } from 'node:net';

/** A configured listener: its address and the setting that names it. */
export interface PortClaim {
  host: string;
  port: number;
  /** The config key, e.g. "[evm] http-port in app.toml". */
  setting: string;
}

/** The claim whose port cannot be bound, with the system's reason, or undefined when all can. */
export async function firstBusyPort(claims: readonly PortClaim[]): Promise<{ claim: PortClaim; reason: string } | undefined> {
  for (const claim of claims) {
    if (claim.port === 0) continue;
    const reason = await new Promise<string | undefined>((resolve) => {
      const server = createServer();
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      server.listen({ host: claim.host, port: claim.port, exclusive: true }, () => server.close(() => resolve(undefined)));
    });
    if (reason !== undefined) return { claim, reason };
  }
  return undefined;
}
