/**
 * Rendering: renderAppToml / renderConfigToml write every key of the schema under a one-line
 * comment, and what they write loads back (through real files) to the same configuration,
 * for the defaults and for a configuration that changes every key.
 */
import t, { type Test } from 'tap';
import { parse } from 'smol-toml';
import {
  APP_SECTIONS,
  Duration,
  NODE_BASE_SETTINGS,
  NODE_SECTIONS,
  defaultAppConfig,
  defaultNodeConfig,
  renderAppToml,
  renderConfigToml,
  type AppConfig,
  type NodeConfig,
} from '../../src/config/index.js';
import { TempHome } from './fixtures/home.js';

const PEER_A = '0123456789abcdef0123456789abcdef01234567';
const PEER_B = 'fedcba9876543210fedcba9876543210fedcba98';

/** Every key set to something other than its default. */
const CUSTOM_APP: AppConfig = {
  stateCommit: {
    enable: true,
    asyncCommitBuffer: 0,
    keepRecent: 3,
    snapshotInterval: 500,
    snapshotMinTimeInterval: 60,
    snapshotWriteRateMbps: 0,
    snapshotWriterLimit: 1,
  },
  stateStore: {
    enable: true,
    backend: 'rocksdb',
    evmSsSplit: false,
    evmSsSeparateDbs: false,
    keepRecent: 0,
    pruneInterval: 30,
    asyncWriteBuffer: -1,
  },
  evm: {
    httpEnabled: false,
    httpAddress: '0.0.0.0',
    httpPort: 18545,
    wsEnabled: false,
    wsPort: 18546,
    maxBodyBytes: 1024,
    maxBatchSize: 10,
    maxConcurrentRequests: 4,
    maxResponseBytes: 65536,
    maxLogBlockRange: 100,
    maxFilters: 7,
    filterTimeout: Duration.parse('90s'),
    traceTimeout: Duration.parse('1m30s'),
    maxConcurrentTraces: 2,
    maxStructLogBytes: 4096,
    gasCap: 0,
    allowUnprotectedTxs: true,
    executionWorkers: 3,
    rpcEvmTimeout: Duration.parse('2s'),
    maxTraceTimeout: Duration.parse('1m'),
  },
  stateSync: { snapshotInterval: 1000, snapshotKeepRecent: 5 },
  storage: { blockCacheSizeMb: 48, writeBufferSizeMb: 16 },
};

/** The split on needs both layers on; separate DBs only mean something with the split. */
const CUSTOM_SPLIT_APP: AppConfig = {
  ...CUSTOM_APP,
  stateCommit: { ...CUSTOM_APP.stateCommit, enable: true },
  stateStore: { ...CUSTOM_APP.stateStore, enable: true, evmSsSplit: true, evmSsSeparateDbs: true },
};

const CUSTOM_NODE: NodeConfig = {
  moniker: 'rpc "east" \\ №1',
  logLevel: 'trace',
  logFormat: 'json',
  persistentPeers: [
    { nodeId: PEER_A, host: '10.0.0.2', port: 26656 },
    { nodeId: PEER_B, host: 'peer-1.example.org', port: 36656 },
    { nodeId: PEER_A.replace('0', 'f'), host: '::1', port: 26656 },
  ],
  rpc: { laddr: { protocol: 'tcp', host: '0.0.0.0', port: 36657 }, lagThreshold: 10 },
  p2p: { laddr: { protocol: 'tcp', host: '::', port: 0 }, maxPacketMsgPayloadSize: 1024000 },
  mempool: { size: 10, keepInvalidTxsInCache: true, ttlDuration: Duration.parse('5s'), ttlNumBlocks: 5, maxTxBytes: 2048, maxTxsPerSender: 7 },
  statesync: {
    enable: true,
    rpcServers: ['http://127.0.0.1:26657', '127.0.0.1:26657'],
    trustHeight: 990000,
    trustHash: 'ab'.repeat(32),
    trustPeriod: Duration.parse('336h'),
  },
  consensus: { timeoutCommit: Duration.parse('250ms') },
  instrumentation: { prometheus: false, prometheusListenAddr: { host: '127.0.0.1', port: 9100 } },
  log: { file: 'logs/node "main".log', maxFileSizeMb: 20, maxFiles: 3 },
};

/** A value as comparable text (durations by their Go text, objects by their JSON). */
function comparable(value: unknown): string {
  return value instanceof Duration ? value.toString() : JSON.stringify(value);
}

function isSection(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Duration) && !('port' in value);
}

/** Guards the round-trip test: every key differs from its default in at least one variant. */
/**
 * Keys accepted only at their default: the node needs both the state commitment and the state
 * store, and refuses `false` for either (test/operator/config-refusals.test.ts).
 */
const ONLY_DEFAULT = new Set(['stateCommit.enable', 'stateStore.enable']);

function assertEveryKeyChanged<C extends object>(t: Test, defaults: C, variants: readonly C[]): void {
  const walk = (fallback: Record<string, unknown>, values: ReadonlyArray<Record<string, unknown>>, path: string): void => {
    for (const [property, value] of Object.entries(fallback)) {
      const at = `${path}${property}`;
      if (ONLY_DEFAULT.has(at)) continue;
      if (isSection(value)) {
        walk(value, values.map((variant) => variant[property] as Record<string, unknown>), `${at}.`);
        continue;
      }
      const changed = values.some((variant) => comparable(variant[property]) !== comparable(value));
      if (!changed) t.fail(`${at} keeps its default in every variant`);
    }
  };
  walk(defaults as Record<string, unknown>, variants as ReadonlyArray<Record<string, unknown>>, '');
  t.pass('every key differs from its default in some variant');
}

/** Keys a settings table renders. */
function keysOf(settings: Readonly<Record<string, { readonly key: string }>>): string[] {
  return Object.values(settings).map((setting) => setting.key);
}

/** Asserts that each key line of `text` sits right under a one-line comment. */
function assertCommentAboveEveryKey(t: Test, text: string): void {
  const lines = text.split('\n');
  let keyLines = 0;
  for (const [index, line] of lines.entries()) {
    if (!/^[A-Za-z0-9_-]+ = /.test(line)) continue;
    keyLines++;
    const above = lines[index - 1] ?? '';
    if (!/^# \S/.test(above)) t.fail(`no comment above ${JSON.stringify(line)}`);
  }
  t.ok(keyLines > 0, `${keyLines} key lines, each under a comment`);
}

t.test('app.toml: every key is written, each under a comment', async (t) => {
  const text = renderAppToml(defaultAppConfig());
  const raw = parse(text);
  for (const section of Object.values(APP_SECTIONS)) {
    const table = raw[section.name] as Record<string, unknown> | undefined;
    t.same(Object.keys(table ?? {}).sort(), keysOf(section.settings).sort(), `[${section.name}] has every key`);
  }
  assertCommentAboveEveryKey(t, text);
});

t.test('config.toml: every key is written, each under a comment', async (t) => {
  const text = renderConfigToml(defaultNodeConfig());
  const raw = parse(text);
  const sectionNames = Object.values(NODE_SECTIONS).map((section) => section.name);
  const topLevel = Object.keys(raw).filter((key) => !sectionNames.includes(key));
  t.same(topLevel.sort(), keysOf(NODE_BASE_SETTINGS).sort(), 'top level has every key');
  for (const section of Object.values(NODE_SECTIONS)) {
    const table = raw[section.name] as Record<string, unknown> | undefined;
    t.same(Object.keys(table ?? {}).sort(), keysOf(section.settings).sort(), `[${section.name}] has every key`);
  }
  assertCommentAboveEveryKey(t, text);
});

t.test('defaults round-trip: render, write, load', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: renderAppToml(defaultAppConfig()), node: renderConfigToml(defaultNodeConfig()) });
  t.same(loaded.app, defaultAppConfig());
  t.same(loaded.node, defaultNodeConfig());
  t.same(loaded.warnings, [], 'the rendered files raise no warnings');
});

t.test('a configuration that changes every key round-trips', async (t) => {
  assertEveryKeyChanged(t, defaultAppConfig(), [CUSTOM_APP, CUSTOM_SPLIT_APP]);
  assertEveryKeyChanged(t, defaultNodeConfig(), [CUSTOM_NODE]);
  const home = await TempHome.create(t);
  for (const app of [CUSTOM_APP, CUSTOM_SPLIT_APP]) {
    const loaded = await home.load({ app: renderAppToml(app), node: renderConfigToml(CUSTOM_NODE) });
    t.same(loaded.app, app, 'app.toml');
    t.same(loaded.node, CUSTOM_NODE, 'config.toml');
    t.same(loaded.warnings, [], 'no warnings');
  }
});

t.test('rendered values use the file forms operators know', async (t) => {
  const text = renderConfigToml(CUSTOM_NODE);
  t.match(text, `persistent_peers = "${PEER_A}@10.0.0.2:26656,${PEER_B}@peer-1.example.org:36656,`, 'peers comma-separated');
  t.match(text, '@[::1]:26656"', 'IPv6 peer host in brackets');
  t.match(text, 'laddr = "tcp://[::]:0"', 'listen address with scheme');
  t.match(text, 'ttl-duration = "5s"', 'durations as Go text');
  t.match(text, 'trust-period = "336h0m0s"', 'long durations in h/m/s');
  t.match(text, 'prometheus_listen_addr = "127.0.0.1:9100"');
  t.match(renderAppToml(CUSTOM_APP), 'trace-timeout = "1m30s"');
});
