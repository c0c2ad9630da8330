/**
 * Clean close: after `close()` a process holding servers with open keep-alive, WebSocket and
 * pending connections exits by itself, for both transports. A leaked socket or timer keeps
 * the event loop alive, and the child would be killed by the timeout instead.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TRANSPORTS } from './fixtures/helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/close-and-exit.ts', import.meta.url));
const EXIT_WITHIN_MS = 15_000;

for (const kind of TRANSPORTS) {
  t.test(`${kind}: the process exits on its own after close()`, async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, kind], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    t.equal(signal, null, `not killed after ${EXIT_WITHIN_MS} ms (stderr: ${stderr})`);
    t.equal(code, 0, stderr);
    t.equal(stdout, 'closed\n');
  });
}
