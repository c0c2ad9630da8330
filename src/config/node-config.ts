/**
 * `config/config.toml`: identity, logging, peers and the consensus-side services (P2P, consensus
 * RPC, mempool, state sync, metrics). Typed schema, defaults and parsing; [statesync] lives in
 * statesync.ts.
 * Every multi-word key is accepted with '-' or '_' (see KeySpelling).
 */
import { hostname } from 'node:os';
import type { LogFormat, LogLevel } from '../log/logger.js';
import {
  formatHostPort,
  formatListenAddress,
  parseHostPort,
  parseListenAddress,
  type HostPort,
  type ListenAddress,
} from './address.js';
import { Duration } from './duration.js';
import { accept, reject, type Parsed } from './parse-result.js';
import { formatPersistentPeers, parsePersistentPeers, type PersistentPeer } from './peers.js';
import { defaultsOf, type SectionSchema, type Settings } from './schema.js';
import { readSettings, sectionTable, type FileContext } from './section-reader.js';
import { checkStateSyncRules, STATESYNC_SECTION, type StateSyncConfig } from './statesync.js';
import type { TomlTable } from './toml-value.js';
import { booleanKind, durationKind, integerKind, oneOfKind, textKind } from './value-kinds.js';
import type { ParsedConfigFile } from './warnings.js';

/** Path of the file relative to the node home, as error messages name it. */
export const CONFIG_TOML = 'config/config.toml';

/** Accepted `log_level` values, least to most severe. */
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];
/** Accepted `log_format` values. */
export const LOG_FORMATS: readonly LogFormat[] = ['plain', 'json'];

/** Top-level keys of `config.toml`. */
export interface NodeBaseConfig {
  /** `moniker`: the node's human-readable name. */
  readonly moniker: string;
  /** `log_level`. */
  readonly logLevel: LogLevel;
  /** `log_format`. */
  readonly logFormat: LogFormat;
  /** `persistent_peers`, parsed. */
  readonly persistentPeers: readonly PersistentPeer[];
}

/** `[rpc]`: the consensus RPC (GET /status, /net_info, /lag_status, …). */
export interface ConsensusRpcConfig {
  /** `laddr`. */
  readonly laddr: ListenAddress;
  /** `lag-threshold`: `/lag_status` answers HTTP 417 when the lag exceeds it. */
  readonly lagThreshold: number;
}

/** `[p2p]`. */
export interface P2pConfig {
  /** `laddr`. */
  readonly laddr: ListenAddress;
  /** `max-packet-msg-payload-size`, bytes. */
  readonly maxPacketMsgPayloadSize: number;
}

/** `[mempool]`. */
export interface MempoolConfig {
  /** `size`: most transactions held. */
  readonly size: number;
  /** `keep-invalid-txs-in-cache`: remember rejected transactions so they are not re-checked. */
  readonly keepInvalidTxsInCache: boolean;
  /** `ttl-duration`: evict entries older than this; 0s = off. */
  readonly ttlDuration: Duration;
  /** `ttl-num-blocks`: evict entries older than this many blocks; 0 = off. */
  readonly ttlNumBlocks: number;
  /** `max-txs-per-sender`: most pending transactions of one sender. */
  readonly maxTxsPerSender: number;
  /** `max-tx-bytes`: largest transaction accepted. */
  readonly maxTxBytes: number;
}

/** `[consensus]`. */
export interface ConsensusConfig {
  /** `timeout_commit`: pause after a commit before the next height starts. */
  readonly timeoutCommit: Duration;
}

/** `[instrumentation]`. */
export interface InstrumentationConfig {
  /** `prometheus`: serve /metrics. */
  readonly prometheus: boolean;
  /** `prometheus_listen_addr`; host "" means every interface. */
  readonly prometheusListenAddr: HostPort;
}

/** `[log]`: a copy of the log in a file under the home, rotated by size. */
export interface LogFileConfig {
  /** `file`: path of the log file, relative to the home unless absolute; "" keeps the log on stderr only. */
  readonly file: string;
  /** `max-file-size-mb`: size at which the file is rotated, MiB. */
  readonly maxFileSizeMb: number;
  /** `max-files`: rotated files kept (`<file>.1` … `<file>.<n>`). */
  readonly maxFiles: number;
}

/** Everything `config/config.toml` configures. */
export interface NodeConfig extends NodeBaseConfig {
  /** `[rpc]`. */
  readonly rpc: ConsensusRpcConfig;
  /** `[p2p]`. */
  readonly p2p: P2pConfig;
  /** `[mempool]`. */
  readonly mempool: MempoolConfig;
  /** `[statesync]`. */
  readonly statesync: StateSyncConfig;
  /** `[consensus]`. */
  readonly consensus: ConsensusConfig;
  /** `[instrumentation]`. */
  readonly instrumentation: InstrumentationConfig;
  /** `[log]`. */
  readonly log: LogFileConfig;
}

const MIB = 1024 * 1024;

const listenAddressKind = textKind('a listen address tcp://<host>:<port>', parseListenAddress, formatListenAddress);

function parseMoniker(text: string): Parsed<string> {
  if (text.trim() === '') return reject('empty');
  // Control characters would break the log line and status output that show the moniker.
  return /[\u0000-\u001f\u007f]/.test(text) ? reject('contains a control character') : accept(text);
}

/** Schema of the top-level keys. */
export const NODE_BASE_SETTINGS: Settings<NodeBaseConfig> = {
  moniker: {
    key: 'moniker',
    doc: 'Human-readable name of this node.',
    kind: textKind('a non-empty name without control characters', parseMoniker, (moniker) => moniker),
    default: hostname(),
  },
  logLevel: {
    key: 'log_level',
    doc: 'Log verbosity: "trace" (most detail), "debug", "info", "warn" or "error".',
    kind: oneOfKind(LOG_LEVELS),
    default: 'info',
  },
  logFormat: {
    key: 'log_format',
    doc: 'Log format: "plain" (human-readable) or "json".',
    kind: oneOfKind(LOG_FORMATS),
    default: 'plain',
  },
  persistentPeers: {
    key: 'persistent_peers',
    doc: 'Peers to keep connected, comma-separated <node_id>@<host>:<port> (P2P port 26656 by default).',
    kind: textKind(
      'a comma-separated list of <node_id>@<host>:<port> with node_id = 40 hex characters',
      parsePersistentPeers,
      formatPersistentPeers,
    ),
    default: Object.freeze([]),
  },
};

/** Schema of `[rpc]`. */
export const RPC_SECTION: SectionSchema<ConsensusRpcConfig> = {
  name: 'rpc',
  doc: 'Consensus RPC server (GET /status, /net_info, /lag_status, /health, /block, /commit).',
  settings: {
    laddr: {
      key: 'laddr',
      doc: 'Address the consensus RPC listens on.',
      kind: listenAddressKind,
      default: { protocol: 'tcp', host: '127.0.0.1', port: 26657 },
    },
    lagThreshold: {
      key: 'lag-threshold',
      doc: 'Blocks behind the best peer after which /lag_status answers HTTP 417.',
      kind: integerKind({ min: 0 }),
      default: 300,
    },
  },
};

/** Schema of `[p2p]`. */
export const P2P_SECTION: SectionSchema<P2pConfig> = {
  name: 'p2p',
  doc: 'Peer-to-peer networking.',
  settings: {
    laddr: {
      key: 'laddr',
      doc: 'Address the P2P server listens on.',
      kind: listenAddressKind,
      default: { protocol: 'tcp', host: '0.0.0.0', port: 26656 },
    },
    maxPacketMsgPayloadSize: {
      key: 'max-packet-msg-payload-size',
      doc: 'Largest packet payload in bytes; 1024000 suits chains with large blocks.',
      kind: integerKind({ min: 1 }),
      default: 102400,
    },
  },
};

/** Schema of `[mempool]`. */
export const MEMPOOL_SECTION: SectionSchema<MempoolConfig> = {
  name: 'mempool',
  doc: 'Pending transactions.',
  settings: {
    size: { key: 'size', doc: 'Most transactions the mempool holds.', kind: integerKind({ min: 1 }), default: 5000 },
    keepInvalidTxsInCache: {
      key: 'keep-invalid-txs-in-cache',
      doc: 'Remember rejected transactions so resubmissions are dropped without re-checking them.',
      kind: booleanKind(),
      default: false,
    },
    ttlDuration: {
      key: 'ttl-duration',
      doc: 'Evict transactions older than this duration (e.g. "5m"); "0s" = off. A transaction that cannot be included stays no longer than this.',
      kind: durationKind({ positive: false }),
      default: Duration.parse('10m'),
    },
    ttlNumBlocks: {
      key: 'ttl-num-blocks',
      doc: 'Evict transactions older than this many blocks; 0 = off.',
      kind: integerKind({ min: 0 }),
      default: 600,
    },
    maxTxsPerSender: {
      key: 'max-txs-per-sender',
      doc: 'Most pending transactions of one sender (geth keeps 16 executable + 64 queued); more are refused, so one sender cannot fill the pool.',
      kind: integerKind({ min: 1 }),
      default: 80,
    },
    maxTxBytes: {
      key: 'max-tx-bytes',
      doc: 'Largest transaction accepted, in bytes.',
      kind: integerKind({ min: 1 }),
      default: MIB,
    },
  },
};

/** Schema of `[consensus]`. */
export const CONSENSUS_SECTION: SectionSchema<ConsensusConfig> = {
  name: 'consensus',
  doc: 'Consensus timing.',
  settings: {
    timeoutCommit: {
      key: 'timeout_commit',
      doc: 'Pause after committing a block before starting the next height, e.g. "1s".',
      kind: durationKind({ positive: false }),
      default: Duration.parse('1s'),
    },
  },
};

/** Schema of `[instrumentation]`. */
export const INSTRUMENTATION_SECTION: SectionSchema<InstrumentationConfig> = {
  name: 'instrumentation',
  doc: 'Prometheus metrics.',
  settings: {
    prometheus: { key: 'prometheus', doc: 'Serve Prometheus metrics at /metrics.', kind: booleanKind(), default: true },
    prometheusListenAddr: {
      key: 'prometheus_listen_addr',
      doc: 'Address of the metrics server; ":26660" listens on every interface.',
      kind: textKind(
        'an address [<host>]:<port>, e.g. ":26660"',
        (text) => parseHostPort(text, { allowEmptyHost: true, allowPortZero: true }),
        formatHostPort,
      ),
      default: { host: '', port: 26660 },
    },
  },
};

function parseLogPath(text: string): Parsed<string> {
  return /[\u0000-\u001f]/.test(text) ? reject('contains a control character') : accept(text);
}

/** Schema of `[log]`. */
export const LOG_SECTION: SectionSchema<LogFileConfig> = {
  name: 'log',
  doc: 'A copy of the log in a file, rotated by size (log_level and log_format apply to it too).',
  settings: {
    file: {
      key: 'file',
      doc: 'Log file, relative to the home unless absolute, e.g. "data/logs/node.log"; "" logs to stderr only.',
      kind: textKind('a file path, or "" for none', parseLogPath, (path) => path),
      default: '',
    },
    maxFileSizeMb: {
      key: 'max-file-size-mb',
      doc: 'Size in MiB at which the log file is rotated to <file>.1.',
      kind: integerKind({ min: 1, max: 1024 * 1024 }),
      default: 100,
    },
    maxFiles: {
      key: 'max-files',
      doc: 'Rotated log files kept; the oldest beyond this is deleted.',
      kind: integerKind({ min: 0, max: 1000 }),
      default: 5,
    },
  },
};

/** The sections of `config.toml`, in rendering order (after the top-level keys). */
export const NODE_SECTIONS = {
  rpc: RPC_SECTION,
  p2p: P2P_SECTION,
  mempool: MEMPOOL_SECTION,
  statesync: STATESYNC_SECTION,
  consensus: CONSENSUS_SECTION,
  instrumentation: INSTRUMENTATION_SECTION,
  log: LOG_SECTION,
} as const;

/** The configuration a node uses when `config.toml` sets nothing. */
export function defaultNodeConfig(): NodeConfig {
  return {
    ...defaultsOf(NODE_BASE_SETTINGS),
    rpc: defaultsOf(RPC_SECTION.settings),
    p2p: defaultsOf(P2P_SECTION.settings),
    mempool: defaultsOf(MEMPOOL_SECTION.settings),
    statesync: defaultsOf(STATESYNC_SECTION.settings),
    consensus: defaultsOf(CONSENSUS_SECTION.settings),
    instrumentation: defaultsOf(INSTRUMENTATION_SECTION.settings),
    log: defaultsOf(LOG_SECTION.settings),
  };
}

/** Validates a parsed `config.toml` (integers as bigint); throws ConfigError on the first bad value. */
export function parseNodeConfig(root: TomlTable, file: string = CONFIG_TOML): ParsedConfigFile<NodeConfig> {
  const ctx: FileContext = { file, spelling: 'dash-or-underscore', warnings: [] };
  const sectionNames = new Set(Object.values(NODE_SECTIONS).map((section) => section.name));
  const read = <S>(schema: SectionSchema<S>): S => readSettings(ctx, schema.name, schema.settings, sectionTable(ctx, root, schema.name));
  const statesyncTable = sectionTable(ctx, root, STATESYNC_SECTION.name);
  const config: NodeConfig = {
    ...readSettings(ctx, '', NODE_BASE_SETTINGS, root, sectionNames),
    rpc: read(RPC_SECTION),
    p2p: read(P2P_SECTION),
    mempool: read(MEMPOOL_SECTION),
    statesync: read(STATESYNC_SECTION),
    consensus: read(CONSENSUS_SECTION),
    instrumentation: read(INSTRUMENTATION_SECTION),
    log: read(LOG_SECTION),
  };
  checkStateSyncRules(ctx, statesyncTable, config.statesync);
  return { config, warnings: ctx.warnings };
}
