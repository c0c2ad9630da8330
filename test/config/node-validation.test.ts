/**
 * config.toml validation: bad enums, bad durations, bad listen addresses, out-of-range numbers,
 * bad peer strings and the state-sync rules are each refused with a ConfigError naming the file,
 * the section, the key, what is allowed and what was found; good peer lists parse into typed
 * entries. Every case is written to a real node home and loaded.
 */
import t from 'tap';
import { assertConfigError, rejection, TempHome, type ExpectedConfigError } from './fixtures/home.js';

const FILE = 'config/config.toml';
const ID_A = '0123456789abcdef0123456789abcdef01234567';
const ID_B = 'fedcba9876543210fedcba9876543210fedcba98';

interface Case {
  name: string;
  /** "" for a top-level key. */
  section: string;
  lines: string;
  expected: Omit<ExpectedConfigError, 'file' | 'section'>;
}

const PEERS = 'a comma-separated list of <node_id>@<host>:<port> with node_id = 40 hex characters';
const LADDR = 'a listen address tcp://<host>:<port>';
const DURATION = 'a duration such as "300ms", "5s" or "2h45m", 0s or more';
const BOOL = 'true or false';

function fileText(testCase: Pick<Case, 'section' | 'lines'>): string {
  return testCase.section === '' ? `${testCase.lines}\n` : `[${testCase.section}]\n${testCase.lines}\n`;
}

const VALUE_CASES: Case[] = [
  // top level
  {
    name: 'unknown log level',
    section: '',
    lines: 'log_level = "verbose"',
    expected: {
      key: 'log_level',
      allowed: 'one of "trace", "debug", "info", "warn", "error"',
      found: '"verbose"',
      message: 'config/config.toml log_level: expected one of "trace", "debug", "info", "warn", "error"; found "verbose"',
    },
  },
  { name: 'log level in capitals', section: '', lines: 'log_level = "INFO"', expected: { key: 'log_level', allowed: 'one of "trace", "debug", "info", "warn", "error"', found: '"INFO"' } },
  { name: 'log level as a number', section: '', lines: 'log_level = 3', expected: { key: 'log_level', allowed: 'one of "trace", "debug", "info", "warn", "error"', found: '3', mentions: '(an integer)' } },
  { name: 'unknown log format', section: '', lines: 'log_format = "text"', expected: { key: 'log_format', allowed: 'one of "plain", "json"', found: '"text"' } },
  { name: 'empty moniker', section: '', lines: 'moniker = ""', expected: { key: 'moniker', allowed: 'a non-empty name without control characters', found: '""' } },
  { name: 'moniker with a newline', section: '', lines: 'moniker = "a\\nb"', expected: { key: 'moniker', allowed: 'a non-empty name without control characters', found: '"a\\nb"' } },
  { name: 'moniker as a number', section: '', lines: 'moniker = 7', expected: { key: 'moniker', allowed: 'a non-empty name without control characters', found: '7', mentions: '(an integer)' } },
  // persistent_peers
  { name: 'peer id of 3 characters', section: '', lines: 'persistent_peers = "abc@1.2.3.4:26656"', expected: { key: 'persistent_peers', allowed: PEERS, found: '"abc@1.2.3.4:26656"', mentions: 'node id "abc" is 3 hex characters' } },
  { name: 'peer id of 41 characters', section: '', lines: `persistent_peers = "${ID_A}0@1.2.3.4:26656"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}0@1.2.3.4:26656"`, mentions: 'is 41 hex characters' } },
  { name: 'peer id not hex', section: '', lines: `persistent_peers = "${'g'.repeat(40)}@1.2.3.4:26656"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${'g'.repeat(40)}@1.2.3.4:26656"`, mentions: 'is not hex' } },
  { name: 'peer without @', section: '', lines: 'persistent_peers = "1.2.3.4:26656"', expected: { key: 'persistent_peers', allowed: PEERS, found: '"1.2.3.4:26656"', mentions: 'has no "@"' } },
  { name: 'peer without port', section: '', lines: `persistent_peers = "${ID_A}@1.2.3.4"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@1.2.3.4"`, mentions: 'write host:port' } },
  { name: 'peer with port 0', section: '', lines: `persistent_peers = "${ID_A}@1.2.3.4:0"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@1.2.3.4:0"`, mentions: 'port 0 is outside 1..65535' } },
  { name: 'peer with port 70000', section: '', lines: `persistent_peers = "${ID_A}@1.2.3.4:70000"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@1.2.3.4:70000"`, mentions: 'port 70000 is outside 1..65535' } },
  { name: 'peer with a named port', section: '', lines: `persistent_peers = "${ID_A}@1.2.3.4:p2p"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@1.2.3.4:p2p"`, mentions: 'port "p2p" is not a number' } },
  { name: 'peer with a bad host', section: '', lines: `persistent_peers = "${ID_A}@bad_host!:26656"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@bad_host!:26656"`, mentions: 'is not an IP address or host name' } },
  { name: 'peer with a bare IPv6 host', section: '', lines: `persistent_peers = "${ID_A}@::1:26656"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@::1:26656"`, mentions: 'IPv6 host in brackets' } },
  { name: 'empty entry between commas', section: '', lines: `persistent_peers = "${ID_A}@a:1,,${ID_B}@b:2"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@a:1,,${ID_B}@b:2"`, mentions: 'entry 2 of 3 is empty' } },
  { name: 'trailing comma', section: '', lines: `persistent_peers = "${ID_A}@a:1,"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@a:1,"`, mentions: 'entry 2 of 2 is empty' } },
  { name: 'the same peer twice', section: '', lines: `persistent_peers = "${ID_A}@a:1,${ID_A.toUpperCase()}@b:2"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@a:1,${ID_A.toUpperCase()}@b:2"`, mentions: 'is listed twice' } },
  { name: 'bad second entry is located', section: '', lines: `persistent_peers = "${ID_A}@a:1,${ID_B}@b"`, expected: { key: 'persistent_peers', allowed: PEERS, found: `"${ID_A}@a:1,${ID_B}@b"`, mentions: 'entry 2 of 2' } },
  { name: 'peers as a TOML array', section: '', lines: `persistent_peers = ["${ID_A}@a:1"]`, expected: { key: 'persistent_peers', allowed: PEERS, found: `["${ID_A}@a:1"]`, mentions: '(an array)' } },
  // [p2p]
  { name: 'listen address without scheme', section: 'p2p', lines: 'laddr = "0.0.0.0:26656"', expected: { key: 'laddr', allowed: LADDR, found: '"0.0.0.0:26656"', mentions: 'starts with tcp://' } },
  { name: 'udp listen address', section: 'p2p', lines: 'laddr = "udp://0.0.0.0:26656"', expected: { key: 'laddr', allowed: LADDR, found: '"udp://0.0.0.0:26656"' } },
  { name: 'listen address without port', section: 'p2p', lines: 'laddr = "tcp://0.0.0.0"', expected: { key: 'laddr', allowed: LADDR, found: '"tcp://0.0.0.0"' } },
  { name: 'listen port out of range', section: 'p2p', lines: 'laddr = "tcp://0.0.0.0:99999"', expected: { key: 'laddr', allowed: LADDR, found: '"tcp://0.0.0.0:99999"', mentions: 'outside 0..65535' } },
  { name: 'zero payload size', section: 'p2p', lines: 'max-packet-msg-payload-size = 0', expected: { key: 'max-packet-msg-payload-size', allowed: 'an integer >= 1', found: '0' } },
  { name: 'quoted payload size', section: 'p2p', lines: 'max-packet-msg-payload-size = "102400"', expected: { key: 'max-packet-msg-payload-size', allowed: 'an integer >= 1', found: '"102400"' } },
  // [rpc]
  { name: 'rpc listen address without scheme', section: 'rpc', lines: 'laddr = "127.0.0.1:26657"', expected: { key: 'laddr', allowed: LADDR, found: '"127.0.0.1:26657"' } },
  { name: 'negative lag threshold', section: 'rpc', lines: 'lag-threshold = -1', expected: { key: 'lag-threshold', allowed: 'an integer >= 0', found: '-1' } },
  // [mempool]
  { name: 'mempool of size 0', section: 'mempool', lines: 'size = 0', expected: { key: 'size', allowed: 'an integer >= 1', found: '0' } },
  { name: 'keep-invalid as a string', section: 'mempool', lines: 'keep-invalid-txs-in-cache = "true"', expected: { key: 'keep-invalid-txs-in-cache', allowed: BOOL, found: '"true"' } },
  { name: 'ttl duration without unit', section: 'mempool', lines: 'ttl-duration = "5"', expected: { key: 'ttl-duration', allowed: DURATION, found: '"5"', mentions: 'missing unit' } },
  { name: 'negative ttl duration', section: 'mempool', lines: 'ttl-duration = "-5s"', expected: { key: 'ttl-duration', allowed: DURATION, found: '"-5s"', mentions: '(negative)' } },
  { name: 'ttl duration as an integer', section: 'mempool', lines: 'ttl-duration = 5', expected: { key: 'ttl-duration', allowed: DURATION, found: '5' } },
  { name: 'negative ttl blocks', section: 'mempool', lines: 'ttl-num-blocks = -1', expected: { key: 'ttl-num-blocks', allowed: 'an integer >= 0', found: '-1' } },
  { name: 'zero max tx bytes', section: 'mempool', lines: 'max-tx-bytes = 0', expected: { key: 'max-tx-bytes', allowed: 'an integer >= 1', found: '0' } },
  // [consensus]
  { name: 'commit timeout without unit', section: 'consensus', lines: 'timeout_commit = "1"', expected: { key: 'timeout_commit', allowed: DURATION, found: '"1"' } },
  { name: 'commit timeout in words', section: 'consensus', lines: 'timeout_commit = "soon"', expected: { key: 'timeout_commit', allowed: DURATION, found: '"soon"' } },
  { name: 'commit timeout with spaces', section: 'consensus', lines: 'timeout_commit = "1 s"', expected: { key: 'timeout_commit', allowed: DURATION, found: '"1 s"' } },
  // [instrumentation]
  { name: 'metrics address without colon', section: 'instrumentation', lines: 'prometheus_listen_addr = "26660"', expected: { key: 'prometheus_listen_addr', allowed: 'an address [<host>]:<port>, e.g. ":26660"', found: '"26660"' } },
  { name: 'prometheus as yes', section: 'instrumentation', lines: 'prometheus = "yes"', expected: { key: 'prometheus', allowed: BOOL, found: '"yes"' } },
  // [statesync] values
  { name: 'trust hash not hex', section: 'statesync', lines: 'trust-hash = "xyz"', expected: { key: 'trust-hash', allowed: '"" or a block hash of 64 hex characters', found: '"xyz"', mentions: '(not hex)' } },
  { name: 'trust hash too short', section: 'statesync', lines: 'trust-hash = "abcd"', expected: { key: 'trust-hash', allowed: '"" or a block hash of 64 hex characters', found: '"abcd"', mentions: '(4 hex characters)' } },
  { name: 'negative trust height', section: 'statesync', lines: 'trust-height = -1', expected: { key: 'trust-height', allowed: 'an integer >= 0', found: '-1' } },
  { name: 'trust period in words', section: 'statesync', lines: 'trust-period = "1 week"', expected: { key: 'trust-period', allowed: DURATION, found: '"1 week"' } },
  { name: 'rpc server with an unknown scheme', section: 'statesync', lines: 'rpc-servers = "ftp://a:1,b:2"', expected: { key: 'rpc-servers', allowed: 'a comma-separated list of servers, each <host>:<port> or http(s)://<host>:<port>', found: '"ftp://a:1,b:2"', mentions: 'entry 1 of 2' } },
  { name: 'rpc server without port', section: 'statesync', lines: 'rpc-servers = "a:1,b"', expected: { key: 'rpc-servers', allowed: 'a comma-separated list of servers, each <host>:<port> or http(s)://<host>:<port>', found: '"a:1,b"', mentions: 'entry 2 of 2' } },
];

t.test('every invalid value is refused with file, section, key, allowed and found', async (t) => {
  const home = await TempHome.create(t);
  for (const testCase of VALUE_CASES) {
    await t.test(`${testCase.section === '' ? '(top level)' : `[${testCase.section}]`} ${testCase.name}`, async (t) => {
      const error = await rejection(() => home.load({ node: fileText(testCase) }));
      assertConfigError(t, error, { file: FILE, section: testCase.section, ...testCase.expected });
    });
  }
});

t.test('persistent_peers parses into typed entries', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    node: `persistent_peers = " ${ID_A}@10.0.0.2:26656 , ${ID_B.toUpperCase()}@peer-1.example.org:36656,${ID_A.replace('0', 'f')}@[::1]:26656"\n`,
  });
  t.same(loaded.node.persistentPeers, [
    { nodeId: ID_A, host: '10.0.0.2', port: 26656 },
    { nodeId: ID_B, host: 'peer-1.example.org', port: 36656 },
    { nodeId: ID_A.replace('0', 'f'), host: '::1', port: 26656 },
  ]);
  t.equal(loaded.node.persistentPeers[1]?.nodeId, ID_B, 'node ids are lowercased');
});

t.test('an empty persistent_peers is an empty list', async (t) => {
  const home = await TempHome.create(t);
  for (const value of ['""', '"   "']) {
    const loaded = await home.load({ node: `persistent_peers = ${value}\n` });
    t.same(loaded.node.persistentPeers, [], value);
  }
});

const TRUST_HASH = 'AB'.repeat(32);
const GOOD_STATESYNC = ['enable = true', 'rpc-servers = "http://10.0.0.1:26657,10.0.0.2:26657"', 'trust-height = 990000', `trust-hash = "${TRUST_HASH}"`, 'trust-period = "168h"'];

/** GOOD_STATESYNC with the line for `key` replaced (or dropped when `line` is undefined). */
function statesyncWith(key: string, line: string | undefined): string {
  const lines = GOOD_STATESYNC.filter((entry) => !entry.startsWith(`${key} =`));
  return ['[statesync]', ...lines, ...(line === undefined ? [] : [line])].join('\n');
}

t.test('state sync: enabling it requires every trust setting', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ node: statesyncWith('', undefined) });
  t.same(loaded.node.statesync.rpcServers, ['http://10.0.0.1:26657', '10.0.0.2:26657'], 'complete settings load');
  t.equal(loaded.node.statesync.trustHash, TRUST_HASH.toLowerCase(), 'trust hash lowercased');
  t.equal(loaded.node.statesync.trustPeriod.toString(), '168h0m0s');

  const refusals: Array<{ key: string; line: string | undefined; allowed: string; found: string }> = [
    { key: 'rpc-servers', line: undefined, allowed: 'at least two comma-separated servers (the same one twice is accepted) while enable = true', found: '""' },
    { key: 'rpc-servers', line: 'rpc-servers = "10.0.0.1:26657"', allowed: 'at least two comma-separated servers (the same one twice is accepted) while enable = true', found: '"10.0.0.1:26657"' },
    { key: 'trust-height', line: undefined, allowed: 'an integer >= 1 while enable = true', found: '0' },
    { key: 'trust-hash', line: undefined, allowed: 'a block hash of 64 hex characters while enable = true', found: '""' },
    { key: 'trust-period', line: 'trust-period = "0s"', allowed: 'a duration above 0s while enable = true', found: '"0s"' },
  ];
  for (const refusal of refusals) {
    const error = await rejection(() => home.load({ node: statesyncWith(refusal.key, refusal.line) }));
    assertConfigError(t, error, { file: FILE, section: 'statesync', key: refusal.key, allowed: refusal.allowed, found: refusal.found, mentions: 'or set enable = false in [statesync]' });
  }
});

t.test('state sync: the same server twice satisfies the two-server rule', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ node: statesyncWith('rpc-servers', 'rpc-servers = "10.0.0.1:26657,10.0.0.1:26657"') });
  t.same(loaded.node.statesync.rpcServers, ['10.0.0.1:26657', '10.0.0.1:26657']);
});

t.test('state sync: trust settings are not required while it is off', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({ node: '[statesync]\nenable = false\nrpc-servers = "10.0.0.1:26657"\n' });
  t.equal(loaded.node.statesync.enable, false);
  t.equal(loaded.node.statesync.trustHeight, 0);
});

t.test('the suggested large-block and mempool values load', async (t) => {
  const home = await TempHome.create(t);
  const loaded = await home.load({
    node: [
      'log_level = "debug"',
      'log_format = "json"',
      '[p2p]',
      'max-packet-msg-payload-size = 1024000',
      '[mempool]',
      'keep-invalid-txs-in-cache = true',
      'ttl-duration = "5s"',
      'ttl-num-blocks = 5',
    ].join('\n'),
  });
  t.equal(loaded.node.logLevel, 'debug');
  t.equal(loaded.node.logFormat, 'json');
  t.equal(loaded.node.p2p.maxPacketMsgPayloadSize, 1024000);
  t.equal(loaded.node.mempool.keepInvalidTxsInCache, true);
  t.equal(loaded.node.mempool.ttlDuration.toMilliseconds(), 5000);
  t.equal(loaded.node.mempool.ttlNumBlocks, 5);
});
