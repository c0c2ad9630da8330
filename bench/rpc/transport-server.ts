/**
 * `node --import tsx bench/rpc/transport-server.ts <uws|node>`: serves `eth_chainId` on
 * 127.0.0.1 (free port) through the chosen transport for the transport benchmark, prints
 * `port <n>` on stdout, and stops on SIGTERM or when stdin closes.
 */
import { Dispatcher, serveJsonRpc } from '../../src/rpc/jsonrpc/index.js';
import { createHttpTransport } from '../../src/rpc/transport/index.js';
import { Logger } from '../../src/log/logger.js';

async function main(): Promise<void> {
  const kind = process.argv[2];
  if (kind !== 'uws' && kind !== 'node') throw new Error(`usage: transport-server.ts <uws|node>, got ${String(kind)}`);
  const logger = new Logger({ level: 'warn' });
  const transport = createHttpTransport({ prefer: kind, logger });
  serveJsonRpc(transport, new Dispatcher({ eth_chainId: () => '0x531' }, { logger }), { logger });
  const port = await transport.listen('127.0.0.1', 0);
  const stop = () => {
    process.stdin.destroy();
    void transport.close();
  };
  process.once('SIGTERM', stop);
  process.stdin.once('end', stop).resume();
  process.stdout.write(`port ${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`transport-server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
