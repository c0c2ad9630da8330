/**
 * Defaults: a node home whose two files set nothing loads the documented default of every key,
 * and defaultAppConfig() / defaultNodeConfig() return the same values.
 */
import t from 'tap';
import { hostname } from 'node:os';
import { defaultAppConfig, defaultNodeConfig, type AppConfig, type NodeConfig } from '../../src/config/index.js';
import { TempHome } from './fixtures/home.js';

const MIB = 1024 * 1024;

/** The values documented for each key (spec tables, configuration reference). */
const DOCUMENTED_APP = {
  stateCommit: {
    enable: true,
    asyncCommitBuffer: 100,
    keepRecent: 1,
    snapshotInterval: 10000,
    snapshotMinTimeInterval: 3600,
    snapshotWriteRateMbps: 100,
    snapshotWriterLimit: 4,
  },
  stateStore: {
    enable: true,
    backend: 'pebbledb',
    evmSsSplit: false,
    evmSsSeparateDbs: false,
    keepRecent: 100000,
    pruneInterval: 600,
    asyncWriteBuffer: 100,
  },
  evm: {
    httpEnabled: true,
    httpAddress: '127.0.0.1',
    httpPort: 8545,
    wsEnabled: true,
    wsPort: 8546,
    maxBodyBytes: 5 * MIB,
    maxBatchSize: 1000,
    maxConcurrentRequests: 1024,
    maxResponseBytes: 25 * MIB,
    maxLogBlockRange: 2000,
    maxFilters: 1000,
    filterTimeout: '5m0s',
    traceTimeout: '5s',
    maxConcurrentTraces: 8,
    maxStructLogBytes: 64 * MIB,
    gasCap: 50_000_000,
    allowUnprotectedTxs: false,
    executionWorkers: 0,
    rpcEvmTimeout: '5s',
    maxTraceTimeout: '30s',
  },
  // The Cosmos SDK's app.toml: no snapshots unless asked for, two kept.
  stateSync: { snapshotInterval: 0, snapshotKeepRecent: 2 },
  storage: { blockCacheSizeMb: 128, writeBufferSizeMb: 64 },
};

const DOCUMENTED_NODE = {
  moniker: hostname(),
  logLevel: 'info',
  logFormat: 'plain',
  persistentPeers: [],
  rpc: { laddr: { protocol: 'tcp', host: '127.0.0.1', port: 26657 }, lagThreshold: 300 },
  p2p: { laddr: { protocol: 'tcp', host: '0.0.0.0', port: 26656 }, maxPacketMsgPayloadSize: 102400 },
  mempool: { size: 5000, keepInvalidTxsInCache: false, ttlDuration: '10m0s', ttlNumBlocks: 600, maxTxBytes: MIB, maxTxsPerSender: 80 },
  statesync: { enable: false, rpcServers: [], trustHeight: 0, trustHash: '', trustPeriod: '168h0m0s' },
  consensus: { timeoutCommit: '1s' },
  instrumentation: { prometheus: true, prometheusListenAddr: { host: '', port: 26660 } },
  log: { file: '', maxFileSizeMb: 100, maxFiles: 5 },
};

/** The config with every Duration written as its Go text, to compare with plain objects. */
function plain(config: AppConfig | NodeConfig): unknown {
  return JSON.parse(JSON.stringify(config, (_key, value: unknown) => (typeof value === 'object' && value !== null && 'nanoseconds' in value ? String(value) : value)));
}

t.test('empty files load the documented defaults, with no warnings', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: '', node: '' });
  t.same(plain(loaded.app), DOCUMENTED_APP, 'app.toml defaults');
  t.same(plain(loaded.node), DOCUMENTED_NODE, 'config.toml defaults');
  t.same(loaded.warnings, [], 'no warnings');
});

t.test('files with empty sections load the same defaults', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    app: '[state-commit]\n[state-store]\n[evm]\n',
    node: '[rpc]\n[p2p]\n[mempool]\n[statesync]\n[consensus]\n[instrumentation]\n',
  });
  t.same(plain(loaded.app), DOCUMENTED_APP);
  t.same(plain(loaded.node), DOCUMENTED_NODE);
});

t.test('defaultAppConfig() and defaultNodeConfig() equal what an empty home loads', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: '', node: '' });
  t.same(loaded.app, defaultAppConfig());
  t.same(loaded.node, defaultNodeConfig());
  t.equal(loaded.app.evm.traceTimeout.toMilliseconds(), 5000, 'trace-timeout is 5 s');
  t.equal(loaded.node.consensus.timeoutCommit.toMilliseconds(), 1000, 'timeout_commit is 1 s');
});

t.test('an absent ss-keep-recent means 100000, not 0 (keep everything)', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: '[state-store]\nss-backend = "rocksdb"\n' });
  t.equal(loaded.app.stateStore.keepRecent, 100000);
  t.equal(loaded.app.stateStore.asyncWriteBuffer, 100, 'and an absent ss-async-write-buffer means 100, not 0');
  t.equal(loaded.app.stateStore.backend, 'rocksdb');
});
