/**
 * `config/app.toml`: the state layers (`[state-commit]`, `[state-store]`) and the EVM JSON-RPC
 * server (`[evm]`). Typed schema, defaults and parsing; cross-key rules live in split-rules.ts.
 */
import { isValidHost } from './address.js';
import { Duration } from './duration.js';
import { rejectLegacyEvmSsKeys } from './legacy-keys.js';
import { accept, reject } from './parse-result.js';
import { defaultsOf, type SectionSchema } from './schema.js';
import { readSettings, sectionTable, type FileContext } from './section-reader.js';
import { checkSplitRules, warnEvmSsOverrides } from './split-rules.js';
import type { TomlTable } from './toml-value.js';
import { booleanKind, durationKind, integerKind, oneOfKind, textKind } from './value-kinds.js';
import type { ParsedConfigFile } from './warnings.js';

/** Path of the file relative to the node home, as error messages name it. */
export const APP_TOML = 'config/app.toml';

/** SS database backends (`ss-backend`). */
export const SS_BACKENDS = ['pebbledb', 'rocksdb'] as const;
/** An SS database backend; it drives the Cosmos SS and every EVM SS sub-DB. */
export type SsBackend = (typeof SS_BACKENDS)[number];

/** `[state-commit]`: the SC layer (memiavl + FlatKV), source of the app hash. */
export interface StateCommitConfig {
  /** `sc-enable`. */
  readonly enable: boolean;
  /** `sc-async-commit-buffer`: queued commits; <= 0 commits synchronously. */
  readonly asyncCommitBuffer: number;
  /** `sc-keep-recent`: old snapshots kept besides the latest. */
  readonly keepRecent: number;
  /** `sc-snapshot-interval`: blocks between snapshots; 0 disables them. */
  readonly snapshotInterval: number;
  /** `sc-snapshot-min-time-interval`: seconds that must pass between two snapshots. */
  readonly snapshotMinTimeInterval: number;
  /** `sc-snapshot-write-rate-mbps`: snapshot write rate cap in MB/s; 0 = unlimited. */
  readonly snapshotWriteRateMbps: number;
  /** `sc-snapshot-writer-limit`: parallel snapshot writers. */
  readonly snapshotWriterLimit: number;
}

/** `[state-store]`: the SS layer (versioned history for queries), with the EVM split. */
export interface StateStoreConfig {
  /** `ss-enable`. */
  readonly enable: boolean;
  /** `ss-backend`: backend of the Cosmos SS and of every EVM SS sub-DB. */
  readonly backend: SsBackend;
  /** `evm-ss-split`: EVM state lives only in the EVM SS under data/evm_ss/. */
  readonly evmSsSplit: boolean;
  /** `evm-ss-separate-dbs`: one EVM SS DB per key family instead of one DB. */
  readonly evmSsSeparateDbs: boolean;
  /** `ss-keep-recent`: versions kept by pruning; 0 keeps every version. */
  readonly keepRecent: number;
  /** `ss-prune-interval`: seconds between pruning runs. */
  readonly pruneInterval: number;
  /** `ss-async-write-buffer`: queued SS writes; <= 0 writes synchronously. */
  readonly asyncWriteBuffer: number;
}

/** `[evm]`: the EVM JSON-RPC server and its request limits. */
export interface EvmRpcConfig {
  /** `http-enabled`. */
  readonly httpEnabled: boolean;
  /** `http-address`: interface the HTTP and WebSocket servers bind. */
  readonly httpAddress: string;
  /** `http-port`. */
  readonly httpPort: number;
  /** `ws-enabled`. */
  readonly wsEnabled: boolean;
  /** `ws-port`. */
  readonly wsPort: number;
  /** `max-body-bytes`: largest request body accepted. */
  readonly maxBodyBytes: number;
  /** `max-batch-size`: most calls in one JSON-RPC batch. */
  readonly maxBatchSize: number;
  /** `max-concurrent-requests`: requests served at once; more are refused. */
  readonly maxConcurrentRequests: number;
  /** `max-response-bytes`: largest answer to one call or one batch. */
  readonly maxResponseBytes: number;
  /** `max-log-block-range`: widest block range of one `eth_getLogs`. */
  readonly maxLogBlockRange: number;
  /** `max-filters`: polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) installed at once. */
  readonly maxFilters: number;
  /** `filter-timeout`: a polling filter not polled for this long is removed. */
  readonly filterTimeout: Duration;
  /** `trace-timeout`: per-transaction time limit of a trace whose request names no `timeout`. */
  readonly traceTimeout: Duration;
  /** `max-concurrent-traces`: `debug_trace*` calls run at once; more are refused. */
  readonly maxConcurrentTraces: number;
  /** `max-struct-log-bytes`: cap on one struct-logger trace's encoded struct logs; beyond it the trace fails. */
  readonly maxStructLogBytes: number;
  /** `gas-cap`: gas limit of `eth_call` / `eth_estimateGas` / `debug_traceCall`; 0 = no cap. */
  readonly gasCap: number;
  /** `allow-unprotected-txs`: accept legacy transactions without EIP-155 replay protection over RPC. */
  readonly allowUnprotectedTxs: boolean;
  /** `execution-workers`: threads running eth_call / eth_estimateGas; 0 = cores − 1, at least 1. */
  readonly executionWorkers: number;
  /** `rpc-evm-timeout`: time one eth_call / eth_estimateGas may take, queueing included (geth's `--rpc.evmtimeout`). */
  readonly rpcEvmTimeout: Duration;
  /** `max-trace-timeout`: the longest per-transaction `timeout` a trace request may ask for. */
  readonly maxTraceTimeout: Duration;
}

/** `[state-sync]`: the snapshots a node writes for others to state-sync from. */
export interface StateSyncSnapshotConfig {
  /** `snapshot-interval`: blocks between snapshots written to data/snapshots/; 0 writes none. */
  readonly snapshotInterval: number;
  /** `snapshot-keep-recent`: snapshots kept, newest first; 0 keeps all. */
  readonly snapshotKeepRecent: number;
}

/** `[storage]`: the RocksDB memory every store of the node shares. */
export interface StorageConfig {
  /** `block-cache-size-mb`: one block cache for every store (SS, EVM SS, FlatKV, block store), MiB. */
  readonly blockCacheSizeMb: number;
  /** `write-buffer-size-mb`: the memtables of every store together, MiB. */
  readonly writeBufferSizeMb: number;
}

/** Everything `config/app.toml` configures. */
export interface AppConfig {
  /** `[state-commit]`. */
  readonly stateCommit: StateCommitConfig;
  /** `[state-store]`. */
  readonly stateStore: StateStoreConfig;
  /** `[evm]`. */
  readonly evm: EvmRpcConfig;
  /** `[state-sync]`. */
  readonly stateSync: StateSyncSnapshotConfig;
  /** `[storage]`. */
  readonly storage: StorageConfig;
}

const MIB = 1024 * 1024;

/** Schema of `[state-commit]`. */
export const STATE_COMMIT_SECTION: SectionSchema<StateCommitConfig> = {
  name: 'state-commit',
  doc: 'State commitment (SC): memiavl for module stores, FlatKV for EVM state; the app hash comes from here.',
  settings: {
    enable: { key: 'sc-enable', doc: 'Turn state commitment on; must be true for evm-ss-split.', kind: booleanKind(), default: true },
    asyncCommitBuffer: {
      key: 'sc-async-commit-buffer',
      doc: 'Commits queued to the background writer; 0 or less commits synchronously.',
      kind: integerKind(),
      default: 100,
    },
    keepRecent: { key: 'sc-keep-recent', doc: 'Old SC snapshots kept besides the latest one.', kind: integerKind({ min: 0 }), default: 1 },
    snapshotInterval: {
      key: 'sc-snapshot-interval',
      doc: 'Blocks between SC snapshots; 0 disables snapshots.',
      kind: integerKind({ min: 0 }),
      default: 10000,
    },
    snapshotMinTimeInterval: {
      key: 'sc-snapshot-min-time-interval',
      doc: 'Seconds that must pass between two SC snapshots.',
      kind: integerKind({ min: 0 }),
      default: 3600,
    },
    snapshotWriteRateMbps: {
      key: 'sc-snapshot-write-rate-mbps',
      doc: 'Snapshot write rate cap in MB/s; 0 = unlimited.',
      kind: integerKind({ min: 0 }),
      default: 100,
    },
    snapshotWriterLimit: {
      key: 'sc-snapshot-writer-limit',
      doc: 'Snapshot writers run in parallel (at least 1).',
      kind: integerKind({ min: 1 }),
      default: 4,
    },
  },
};

/** Schema of `[state-store]`. */
export const STATE_STORE_SECTION: SectionSchema<StateStoreConfig> = {
  name: 'state-store',
  doc: 'State store (SS): versioned key/value history serving historical queries.',
  settings: {
    enable: { key: 'ss-enable', doc: 'Turn the state store on; must be true for evm-ss-split.', kind: booleanKind(), default: true },
    backend: {
      key: 'ss-backend',
      doc: 'Database backend of the Cosmos SS and of every EVM SS sub-DB: "pebbledb" or "rocksdb".',
      kind: oneOfKind(SS_BACKENDS),
      default: 'pebbledb',
    },
    evmSsSplit: {
      key: 'evm-ss-split',
      doc: 'Keep EVM state only in the EVM SS (data/evm_ss/); turning it on needs a wipe and a state sync.',
      kind: booleanKind(),
      default: false,
    },
    evmSsSeparateDbs: {
      key: 'evm-ss-separate-dbs',
      doc: 'With evm-ss-split: one EVM SS DB per key family (nonce, codehash, code, storage, legacy).',
      kind: booleanKind(),
      default: false,
    },
    keepRecent: {
      key: 'ss-keep-recent',
      doc: 'Versions kept when pruning; 0 keeps every version (archive). Lowering it prunes history.',
      kind: integerKind({ min: 0 }),
      default: 100000,
    },
    pruneInterval: {
      key: 'ss-prune-interval',
      doc: 'Seconds between pruning runs (at least 1).',
      kind: integerKind({ min: 1 }),
      default: 600,
    },
    asyncWriteBuffer: {
      key: 'ss-async-write-buffer',
      doc: 'Blocks queued for the background SS writer; 0 or less writes synchronously.',
      kind: integerKind(),
      default: 100,
    },
  },
};

const hostKind = textKind<string>(
  'an IP address or host name, e.g. "127.0.0.1"',
  (text) => (isValidHost(text) ? accept(text) : reject('')),
  (host) => host,
);
const portKind = integerKind({ min: 1, max: 65535 });

/** Schema of `[evm]`. */
export const EVM_SECTION: SectionSchema<EvmRpcConfig> = {
  name: 'evm',
  doc: 'EVM JSON-RPC server (eth_, net_, web3_, debug_) and its request limits.',
  settings: {
    httpEnabled: { key: 'http-enabled', doc: 'Serve JSON-RPC over HTTP.', kind: booleanKind(), default: true },
    httpAddress: {
      key: 'http-address',
      doc: 'Interface the HTTP and WebSocket servers bind; "0.0.0.0" exposes them to the network.',
      kind: hostKind,
      default: '127.0.0.1',
    },
    httpPort: { key: 'http-port', doc: 'HTTP JSON-RPC port.', kind: portKind, default: 8545 },
    wsEnabled: { key: 'ws-enabled', doc: 'Serve JSON-RPC over WebSocket.', kind: booleanKind(), default: true },
    wsPort: { key: 'ws-port', doc: 'WebSocket JSON-RPC port.', kind: portKind, default: 8546 },
    maxBodyBytes: {
      key: 'max-body-bytes',
      doc: 'Largest request body accepted, in bytes.',
      kind: integerKind({ min: 1 }),
      default: 5 * MIB,
    },
    maxBatchSize: { key: 'max-batch-size', doc: 'Most calls in one JSON-RPC batch.', kind: integerKind({ min: 1 }), default: 1000 },
    maxConcurrentRequests: {
      key: 'max-concurrent-requests',
      doc: 'Requests served at once; further requests are refused until one finishes.',
      kind: integerKind({ min: 1 }),
      default: 1024,
    },
    maxResponseBytes: {
      key: 'max-response-bytes',
      doc: 'Largest answer to one call or one batch, in bytes; a larger one is replaced by error -32005 (geth caps batch answers at 25 MB).',
      kind: integerKind({ min: 1 }),
      default: 25 * MIB,
    },
    maxLogBlockRange: {
      key: 'max-log-block-range',
      doc: 'Widest block range one eth_getLogs call may scan.',
      kind: integerKind({ min: 1 }),
      default: 2000,
    },
    maxFilters: {
      key: 'max-filters',
      doc: 'Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) installed at once; a further one is refused (error -32005) until one is uninstalled or expires.',
      kind: integerKind({ min: 1, max: 1_000_000 }),
      default: 1000,
    },
    filterTimeout: {
      key: 'filter-timeout',
      doc: 'A polling filter that no eth_getFilterChanges has read for this long is removed (geth: "5m").',
      kind: durationKind({ positive: true }),
      default: Duration.parse('5m'),
    },
    traceTimeout: {
      key: 'trace-timeout',
      doc: 'Time each traced transaction may run when the request names no timeout (geth\'s default is "5s"); past it the trace fails with "execution timeout".',
      kind: durationKind({ positive: true }),
      default: Duration.parse('5s'),
    },
    maxConcurrentTraces: {
      key: 'max-concurrent-traces',
      doc: 'debug_trace* calls run at once; further ones are refused at once (error -32005) until one finishes.',
      kind: integerKind({ min: 1 }),
      default: 8,
    },
    maxStructLogBytes: {
      key: 'max-struct-log-bytes',
      doc: 'Cap on the encoded struct logs of one struct-logger trace, in bytes; a trace that outgrows it fails instead of exhausting memory.',
      kind: integerKind({ min: 1 }),
      default: 64 * MIB,
    },
    gasCap: {
      key: 'gas-cap',
      doc: 'Gas limit of eth_call, eth_estimateGas and debug_traceCall; 0 = no cap.',
      kind: integerKind({ min: 0 }),
      default: 50_000_000,
    },
    allowUnprotectedTxs: {
      key: 'allow-unprotected-txs',
      doc: 'Accept legacy transactions signed without a chain id (pre-EIP-155), which can be replayed on any chain; off as in geth.',
      kind: booleanKind(),
      default: false,
    },
    executionWorkers: {
      key: 'execution-workers',
      doc: 'Threads that run eth_call and eth_estimateGas beside block production, each with its own VMs; 0 = one fewer than the CPU cores, at least 1.',
      kind: integerKind({ min: 0, max: 256 }),
      default: 0,
    },
    rpcEvmTimeout: {
      key: 'rpc-evm-timeout',
      doc: 'Time one eth_call or eth_estimateGas may take, waiting for a worker included; past it the call fails with "execution aborted (timeout = …)" (geth\'s --rpc.evmtimeout).',
      kind: durationKind({ positive: true }),
      default: Duration.parse('5s'),
    },
    maxTraceTimeout: {
      key: 'max-trace-timeout',
      doc: 'Longest per-transaction "timeout" a debug_trace* request may ask for; a longer one is refused (invalid params).',
      kind: durationKind({ positive: true }),
      default: Duration.parse('30s'),
    },
  },
};

/** Schema of `[state-sync]` (the Cosmos SDK's keys and defaults: off, two kept). */
export const STATE_SYNC_SECTION: SectionSchema<StateSyncSnapshotConfig> = {
  name: 'state-sync',
  doc: 'State-sync snapshots of the state commitment, written to data/snapshots/ for other nodes to start from.',
  settings: {
    snapshotInterval: {
      key: 'snapshot-interval',
      doc: 'Blocks between snapshots; 0 writes none. data/snapshots/ may be deleted at any time to free space.',
      kind: integerKind({ min: 0 }),
      default: 0,
    },
    snapshotKeepRecent: {
      key: 'snapshot-keep-recent',
      doc: 'Snapshots kept, newest first; 0 keeps all.',
      kind: integerKind({ min: 0, max: 1000 }),
      default: 2,
    },
  },
};

/** Schema of `[storage]`. */
export const STORAGE_SECTION: SectionSchema<StorageConfig> = {
  name: 'storage',
  doc: 'RocksDB memory shared by every store of the node (Cosmos SS, EVM SS, FlatKV, block store).',
  settings: {
    blockCacheSizeMb: {
      key: 'block-cache-size-mb',
      doc: 'MiB of one block cache for all stores; index and filter blocks are kept in it too.',
      kind: integerKind({ min: 1, max: 1024 * 1024 }),
      default: 128,
    },
    writeBufferSizeMb: {
      key: 'write-buffer-size-mb',
      doc: 'MiB of memtables of all stores together; a store whose write finds the total above it flushes.',
      kind: integerKind({ min: 1, max: 1024 * 1024 }),
      default: 64,
    },
  },
};

/** The sections of `app.toml`, in rendering order. */
export const APP_SECTIONS = {
  stateCommit: STATE_COMMIT_SECTION,
  stateStore: STATE_STORE_SECTION,
  evm: EVM_SECTION,
  stateSync: STATE_SYNC_SECTION,
  storage: STORAGE_SECTION,
} as const;

/** The configuration a node uses when `app.toml` sets nothing. */
export function defaultAppConfig(): AppConfig {
  return {
    stateCommit: defaultsOf(STATE_COMMIT_SECTION.settings),
    stateStore: defaultsOf(STATE_STORE_SECTION.settings),
    evm: defaultsOf(EVM_SECTION.settings),
    stateSync: defaultsOf(STATE_SYNC_SECTION.settings),
    storage: defaultsOf(STORAGE_SECTION.settings),
  };
}

/** Validates a parsed `app.toml` (integers as bigint); throws ConfigError on the first bad value. */
export function parseAppConfig(root: TomlTable, file: string = APP_TOML): ParsedConfigFile<AppConfig> {
  const ctx: FileContext = { file, spelling: 'as-documented', warnings: [] };
  const stateStoreTable = sectionTable(ctx, root, STATE_STORE_SECTION.name);
  // Checked before anything else: a legacy key must never be skipped as merely "unknown".
  rejectLegacyEvmSsKeys(file, root);

  const sectionNames = new Set(Object.values(APP_SECTIONS).map((section) => section.name));
  readSettings(ctx, '', {}, root, sectionNames);
  const overrides = warnEvmSsOverrides(ctx, stateStoreTable);
  const read = <S>(schema: SectionSchema<S>): S => readSettings(ctx, schema.name, schema.settings, sectionTable(ctx, root, schema.name));
  const config: AppConfig = {
    stateCommit: read(STATE_COMMIT_SECTION),
    stateStore: readSettings(ctx, STATE_STORE_SECTION.name, STATE_STORE_SECTION.settings, stateStoreTable, overrides),
    evm: read(EVM_SECTION),
    stateSync: read(STATE_SYNC_SECTION),
    storage: read(STORAGE_SECTION),
  };
  checkSplitRules(ctx, config);
  return { config, warnings: ctx.warnings };
}
