/** Identifiers of filters and subscriptions, spelled as geth spells them. */
import { randomBytes } from 'node:crypto';

/**
 * A fresh random id: 0x and 128 random bits in hex with leading zeros dropped (geth's rpc.ID),
 * so clients that compare ids as geth prints them see the same form.
 */
export function newRpcId(): string {
  const digits = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${digits === '' ? '0' : digits}`;
}
