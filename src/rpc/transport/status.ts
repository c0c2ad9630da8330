/** HTTP status lines for transports that write them by hand (uWS). */
import { STATUS_CODES } from 'node:http';

const lines = new Map<number, string>();

/** `"200 OK"` for 200, cached. */
export function statusLine(status: number): string {
  let line = lines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    lines.set(status, line);
  }
  return line;
}
