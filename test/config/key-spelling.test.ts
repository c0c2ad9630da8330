/**
 * Key spellings. config.toml accepts every multi-word key with '-' or '_' (Tendermint 0.34
 * files use snake_case, 0.35 onwards kebab-case); writing both spellings of one key is refused.
 * app.toml accepts only the documented kebab-case spelling and warns about the other.
 */
import t from 'tap';
import { NODE_BASE_SETTINGS, NODE_SECTIONS, defaultNodeConfig, renderConfigToml, type NodeConfig } from '../../src/config/index.js';
import { assertConfigError, rejection, TempHome } from './fixtures/home.js';

function swapSeparators(key: string): string {
  return key.replace(/[-_]/g, (separator) => (separator === '-' ? '_' : '-'));
}

/** The rendered config.toml with every multi-word key written with the other separator. */
function withOtherSpelling(text: string): { text: string; swapped: number } {
  let swapped = 0;
  const lines = text.split('\n').map((line) => {
    const match = /^([A-Za-z0-9_-]+) = (.*)$/.exec(line);
    if (match === null || !/[-_]/.test(match[1] ?? '')) return line;
    swapped++;
    return `${swapSeparators(match[1] ?? '')} = ${match[2] ?? ''}`;
  });
  return { text: lines.join('\n'), swapped };
}

function multiWordKeys(settings: Readonly<Record<string, { readonly key: string }>>): string[] {
  return Object.values(settings)
    .map((setting) => setting.key)
    .filter((key) => /[-_]/.test(key));
}

const ID = '0123456789abcdef0123456789abcdef01234567';

const CUSTOM: NodeConfig = {
  ...defaultNodeConfig(),
  logLevel: 'debug',
  logFormat: 'json',
  persistentPeers: [{ nodeId: ID, host: '10.0.0.9', port: 26656 }],
  p2p: { ...defaultNodeConfig().p2p, maxPacketMsgPayloadSize: 1024000 },
  rpc: { ...defaultNodeConfig().rpc, lagThreshold: 50 },
  mempool: { ...defaultNodeConfig().mempool, keepInvalidTxsInCache: true, ttlNumBlocks: 5, maxTxBytes: 4096 },
  statesync: { ...defaultNodeConfig().statesync, trustHeight: 12 },
};

t.test('config.toml: every multi-word key also loads with the other separator', async (t) => {
  const expectedSwaps = [NODE_BASE_SETTINGS, ...Object.values(NODE_SECTIONS).map((section) => section.settings)]
    .flatMap((settings) => multiWordKeys(settings)).length;
  const { text, swapped } = withOtherSpelling(renderConfigToml(CUSTOM));
  t.equal(swapped, expectedSwaps, `all ${expectedSwaps} multi-word keys were respelled`);
  t.match(text, '\nlog-level = "debug"', 'e.g. log_level became log-level');
  t.match(text, '\nmax_packet_msg_payload_size = 1024000', 'and max-packet-msg-payload-size became max_packet_msg_payload_size');
  const home = await TempHome.create(t);
  const loaded = await home.load({ node: text });
  t.same(loaded.node, CUSTOM, 'same configuration');
  t.same(loaded.warnings, [], 'no unknown-key warnings');
});

t.test('config.toml: both spellings of one key are refused', async (t) => {
  const home = await TempHome.create(t);
  const cases = [
    { section: '', lines: 'log_level = "info"\nlog-level = "debug"', key: 'log_level', other: 'log-level', found: 'log_level = "info" and log-level = "debug"' },
    { section: 'mempool', lines: 'ttl-num-blocks = 5\nttl_num_blocks = 5', key: 'ttl-num-blocks', other: 'ttl_num_blocks', found: 'ttl-num-blocks = 5 and ttl_num_blocks = 5' },
    { section: 'consensus', lines: 'timeout_commit = "1s"\ntimeout-commit = "2s"', key: 'timeout_commit', other: 'timeout-commit', found: 'timeout_commit = "1s" and timeout-commit = "2s"' },
  ];
  for (const both of cases) {
    const text = both.section === '' ? both.lines : `[${both.section}]\n${both.lines}`;
    const error = await rejection(() => home.load({ node: text }));
    assertConfigError(t, error, {
      file: 'config/config.toml',
      section: both.section,
      key: both.key,
      allowed: `one spelling of the key, ${both.key} or ${both.other}`,
      found: both.found,
      mentions: 'Delete one of the two lines',
    });
  }
});

t.test('config.toml: an invalid value is reported under the spelling the file uses', async (t) => {
  const home = await TempHome.create(t);
  const error = await rejection(() => home.load({ node: '[p2p]\nmax_packet_msg_payload_size = 0\n' }));
  assertConfigError(t, error, { file: 'config/config.toml', section: 'p2p', key: 'max_packet_msg_payload_size', allowed: 'an integer >= 1', found: '0' });
});

t.test('app.toml: only the documented spelling is read; the other gets a "did you mean" warning', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ app: '[state-store]\nss_backend = "rocksdb"\nevm_ss_split = true\n[state-commit]\nsc_enable = false\n' });
  t.equal(loaded.app.stateStore.backend, 'pebbledb', 'ss_backend is not read');
  t.equal(loaded.app.stateStore.evmSsSplit, false, 'evm_ss_split is not read');
  t.equal(loaded.app.stateCommit.enable, true, 'sc_enable is not read');
  t.same(
    loaded.warnings.map((warning) => warning.message),
    [
      'config/app.toml [state-commit] sc_enable: unknown key, ignored (did you mean "sc-enable"?)',
      'config/app.toml [state-store] ss_backend: unknown key, ignored (did you mean "ss-backend"?)',
      'config/app.toml [state-store] evm_ss_split: unknown key, ignored (did you mean "evm-ss-split"?)',
    ],
  );
});
