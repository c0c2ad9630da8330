/**
 * `[statesync]` of `config.toml`: bootstrap from a snapshot, verified by a light client against
 * a trusted block. Its schema, the parsers of its server list and trust hash, and the rule that
 * enabling it requires every trust setting.
 */
import { parseHostPort } from './address.js';
import { Duration } from './duration.js';
import { ConfigError } from './errors.js';
import { accept, reject, type Parsed } from './parse-result.js';
import type { SectionSchema } from './schema.js';
import { findValue, type FileContext } from './section-reader.js';
import { describeValue, type TomlTable } from './toml-value.js';
import { booleanKind, durationKind, integerKind, textKind } from './value-kinds.js';

/** `[statesync]`. */
export interface StateSyncConfig {
  /** `enable`: bootstrap from a snapshot instead of replaying blocks. */
  readonly enable: boolean;
  /** `rpc-servers`, split on commas. */
  readonly rpcServers: readonly string[];
  /** `trust-height`. */
  readonly trustHeight: number;
  /** `trust-hash`: lowercase hex of the block hash at trust-height ("" when unset). */
  readonly trustHash: string;
  /** `trust-period`. */
  readonly trustPeriod: Duration;
}

function parseRpcServer(text: string): Parsed<string> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return reject(`"${text}" is not a URL`);
    }
    if (!['http:', 'https:', 'tcp:'].includes(url.protocol)) return reject(`"${text}": use http://, https:// or tcp://`);
    return url.hostname === '' ? reject(`"${text}" has no host`) : accept(text);
  }
  const hostPort = parseHostPort(text, { allowEmptyHost: false, allowPortZero: false });
  return hostPort.ok ? accept(text) : reject(`"${text}": ${hostPort.reason}`);
}

function parseRpcServers(text: string): Parsed<readonly string[]> {
  if (text.trim() === '') return accept([]);
  const servers: string[] = [];
  const entries = text.split(',');
  for (const [index, raw] of entries.entries()) {
    const entry = raw.trim();
    const position = `entry ${index + 1} of ${entries.length}`;
    if (entry === '') return reject(`${position} is empty; remove the extra comma`);
    const server = parseRpcServer(entry);
    if (!server.ok) return reject(`${position}: ${server.reason}`);
    servers.push(server.value);
  }
  return accept(servers);
}

function parseTrustHash(text: string): Parsed<string> {
  if (text === '') return accept('');
  if (!/^[0-9a-fA-F]*$/.test(text)) return reject('not hex');
  return text.length === 64 ? accept(text.toLowerCase()) : reject(`${text.length} hex characters`);
}

/** Schema of `[statesync]`. */
export const STATESYNC_SECTION: SectionSchema<StateSyncConfig> = {
  name: 'statesync',
  doc: 'State sync: start from a snapshot served by peers, verified against a trusted block.',
  settings: {
    enable: { key: 'enable', doc: 'Bootstrap this node with state sync.', kind: booleanKind(), default: false },
    rpcServers: {
      key: 'rpc-servers',
      doc: 'Comma-separated consensus RPC servers (at least two) used to verify the snapshot.',
      kind: textKind('a comma-separated list of servers, each <host>:<port> or http(s)://<host>:<port>', parseRpcServers, (servers) =>
        servers.join(','),
      ),
      default: Object.freeze([]),
    },
    trustHeight: { key: 'trust-height', doc: 'Height of the trusted block.', kind: integerKind({ min: 0 }), default: 0 },
    trustHash: {
      key: 'trust-hash',
      doc: 'Hash of the trusted block, 64 hex characters.',
      kind: textKind('"" or a block hash of 64 hex characters', parseTrustHash, (hash) => hash),
      default: '',
    },
    trustPeriod: {
      key: 'trust-period',
      doc: 'How long the trusted block may be trusted, e.g. "168h".',
      kind: durationKind({ positive: false }),
      default: Duration.parse('168h'),
    },
  },
};

/** The key as the file spells it (for error messages), or its documented spelling. */
function spelledKey(ctx: FileContext, table: TomlTable, key: string): string {
  return findValue(ctx, STATESYNC_SECTION.name, table, key)?.key ?? key;
}

/** Throws when state sync is enabled without every trust setting its light client needs. */
export function checkStateSyncRules(ctx: FileContext, table: TomlTable, statesync: StateSyncConfig): void {
  if (!statesync.enable) return;
  const fail = (key: string, allowed: string, found: string): never => {
    throw new ConfigError({
      file: ctx.file,
      section: STATESYNC_SECTION.name,
      key: spelledKey(ctx, table, key),
      allowed: `${allowed} while enable = true`,
      found,
      remedy: 'Set it from a trusted RPC endpoint, or set enable = false in [statesync]',
    });
  };
  const { settings } = STATESYNC_SECTION;
  if (statesync.rpcServers.length < 2) {
    // The light client cross-checks a primary against a witness; one server cannot be checked.
    const found = describeValue(statesync.rpcServers.join(','));
    fail(settings.rpcServers.key, 'at least two comma-separated servers (the same one twice is accepted)', found);
  }
  if (statesync.trustHeight < 1) fail(settings.trustHeight.key, 'an integer >= 1', String(statesync.trustHeight));
  if (statesync.trustHash === '') fail(settings.trustHash.key, 'a block hash of 64 hex characters', '""');
  if (statesync.trustPeriod.nanoseconds === 0n) {
    fail(settings.trustPeriod.key, 'a duration above 0s', describeValue(statesync.trustPeriod.toString()));
  }
}
