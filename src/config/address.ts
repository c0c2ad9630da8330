/**
 * Network addresses in configuration values: hosts, `host:port` pairs (IPv6 in brackets, as
 * Go's net.SplitHostPort expects) and `tcp://host:port` listen addresses.
 */
import { isIP } from 'node:net';
import { accept, reject, type Parsed } from './parse-result.js';

/** A host and a TCP port. */
export interface HostPort {
  /** IPv4 or IPv6 literal (without brackets) or DNS name; "" means every interface. */
  readonly host: string;
  /** TCP port; 0 (listen addresses only) lets the operating system choose. */
  readonly port: number;
}

/** A listen address written as `tcp://host:port`. */
export interface ListenAddress extends HostPort {
  /** Only TCP is served. */
  readonly protocol: 'tcp';
}

const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True for an IPv4/IPv6 literal or a DNS name made of RFC 1123 labels. */
export function isValidHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  if (host.length === 0 || host.length > 253) return false;
  return host.split('.').every((label) => HOSTNAME_LABEL.test(label));
}

/** Options of {@link parseHostPort}. */
export interface HostPortRules {
  /** Accept ":26660" (every interface). */
  readonly allowEmptyHost: boolean;
  /** Accept port 0 (the operating system picks one), as a listen address may. */
  readonly allowPortZero: boolean;
}

/** Parses `host:port` or `[ipv6]:port`. */
export function parseHostPort(text: string, rules: HostPortRules): Parsed<HostPort> {
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(text);
  const plain = /^([^:[\]]*):([^:]*)$/.exec(text);
  const match = bracketed ?? plain;
  if (match === null) return reject('write host:port, with an IPv6 host in brackets as [::1]:26656');
  const host = match[1] ?? '';
  const portText = match[2] ?? '';
  if (bracketed !== null && isIP(host) !== 6) return reject(`"${host}" in brackets is not an IPv6 address`);
  if (host === '' && !rules.allowEmptyHost) return reject('the host is missing');
  if (host !== '' && !isValidHost(host)) return reject(`"${host}" is not an IP address or host name`);
  if (!/^\d{1,5}$/.test(portText)) return reject(`port "${portText}" is not a number`);
  const port = Number(portText);
  const lowest = rules.allowPortZero ? 0 : 1;
  if (port < lowest || port > 65535) return reject(`port ${port} is outside ${lowest}..65535`);
  return accept({ host, port });
}

/** Writes `host:port`, bracketing an IPv6 host. */
export function formatHostPort(address: HostPort): string {
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}

/** Parses `tcp://host:port`. */
export function parseListenAddress(text: string): Parsed<ListenAddress> {
  const prefix = 'tcp://';
  if (!text.startsWith(prefix)) return reject('a listen address starts with tcp://');
  const hostPort = parseHostPort(text.slice(prefix.length), { allowEmptyHost: false, allowPortZero: true });
  if (!hostPort.ok) return hostPort;
  return accept({ protocol: 'tcp', ...hostPort.value });
}

/** Writes `tcp://host:port`. */
export function formatListenAddress(address: ListenAddress): string {
  return `${address.protocol}://${formatHostPort(address)}`;
}
